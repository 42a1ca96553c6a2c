package api

import (
	"bytes"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

func TestPackedFormsUnpackToTheRenderedBody(t *testing.T) {
	compressed, plain := largeAnswer(1)
	packed := pack(plain)
	answer := compressed.withPacked(packed)
	if grown := answer.size() - compressed.size(); grown != int64(len(packed)) {
		t.Fatalf("the packed form counts %d bytes, want its %d", grown, len(packed))
	}
	if len(packed) >= len(plain)/4 {
		t.Fatalf("a %d-byte body packed into %d bytes", len(plain), len(packed))
	}
	for _, dst := range [][]byte{nil, make([]byte, 10), make([]byte, 0, len(plain)+100)} {
		got, err := unpack(dst, answer)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("unpacked into a buffer of %d bytes: the body differs from the rendered one (%v)", cap(dst), err)
		}
		if cap(dst) >= len(plain) && &got[0] != &dst[:1][0] {
			t.Fatal("the body was not unpacked into the buffer that had room for it")
		}
	}
	var p inflaters
	if got, err := p.plainBody(answer); err != nil || !bytes.Equal(got, plain) {
		t.Fatalf("the plain body of a packed answer differs from the rendered one (%v)", err)
	}
	if answer.withPlain(plain).withoutPlain().packed == nil {
		t.Fatal("dropping the plain form dropped the packed one")
	}
	cut := answer.withPacked(packed[:len(packed)/2])
	if _, err := unpack(nil, cut); err == nil {
		t.Fatal("a truncated packed form was unpacked without an error")
	}
}

func TestAPackedFormIsKeptWithItsEntry(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	compressed, plain := largeAnswer(1)
	cache := newResponseCache(time.Hour, 4*int64(len(plain)), clock)
	cache.put(cachePlace{key: "big", ttl: time.Hour}, compressed, 0)
	before := cache.used()
	completed := compressed.withPacked(pack(plain))
	cache.keepPacked("big", compressed, completed, clock.Now())
	if got, ok := cache.getString("big", clock.Now()); !ok || got != completed {
		t.Fatal("the answer with its packed form did not replace the compressed-only one")
	}
	if grown := cache.used() - before; grown != int64(len(completed.packed)) {
		t.Fatalf("the cache's use grew by %d bytes for a packed form of %d", grown, len(completed.packed))
	}
	// A replacement of an answer that is no longer the cached one is
	// ignored.
	cache.keepPacked("big", compressed, compressed.withPacked(pack(plain)), clock.Now())
	if got, _ := cache.getString("big", clock.Now()); got != completed {
		t.Fatal("a stale packed form overwrote the cached answer")
	}
	// The plain form is an extra that may go again; the packed form stays
	// with the entry.
	cache.replace("big", completed, completed.withPlain(plain), clock.Now())
	shard := cache.shardOfString("big")
	shard.mu.Lock()
	shard.makeRoomLocked(shard.budget - shard.used + 1)
	shard.mu.Unlock()
	if got, _ := cache.getString("big", clock.Now()); got.plain != nil || got.packed == nil {
		t.Fatalf("after its plain form went: plain %v, packed %v, want only the packed form", got.plain != nil, got.packed != nil)
	}
}

// TestAPackedFormTakesTheRoomOfIdleEntriesOnly: room for a packed form is
// made from entries no one asked for in the last 10 to 20 s, never from
// entries in use, and the entry stays as it was when there is no room.
func TestAPackedFormTakesTheRoomOfIdleEntriesOnly(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	asked, plain := largeAnswer(1)
	packed := asked.withPacked(pack(plain))
	other, _ := largeAnswer(2)
	third, _ := largeAnswer(3)
	// Room for the three compressed answers (and their five-letter keys),
	// and for the packed form only when one of the others goes.
	budget := asked.size() + other.size() + third.size() + 3*5 + int64(len(packed.packed)) - 1
	cache := newResponseCache(time.Hour, budget, clock)
	for _, key := range []string{"other", "third", "asked"} {
		cache.put(cachePlace{key: key, ttl: time.Hour}, map[string]*cachedAnswer{"other": other, "third": third, "asked": asked}[key], 0)
	}
	// Every entry was just stored, so each is in use.
	cache.getString("asked", clock.Now())
	cache.keepPacked("asked", asked, packed, clock.Now())
	for _, key := range []string{"asked", "other", "third"} {
		if got, ok := cache.getString(key, clock.Now()); !ok || got.packed != nil {
			t.Fatalf("%s: cached %v, packed %v: an entry in use made room for a packed form", key, ok, ok && got.packed != nil)
		}
	}
	// 25 s on, "other" has not been asked for since; "third" has.
	clock.Advance(25 * time.Second)
	cache.getString("third", clock.Now())
	cache.getString("asked", clock.Now())
	cache.keepPacked("asked", asked, packed, clock.Now())
	if got, _ := cache.getString("asked", clock.Now()); got != packed {
		t.Fatal("the packed form was not kept although an idle entry could make room")
	}
	if _, ok := cache.getString("third", clock.Now()); !ok {
		t.Fatal("an entry in use made room for a packed form")
	}
	if _, ok := cache.getString("other", clock.Now()); ok {
		t.Fatal("the idle entry is still kept although the packed form needed its room")
	}
}

// BenchmarkUnpack compares what a client without gzip costs when the
// answer's plain form is not kept: unpacking its packed form against
// inflating its gzip form, for a 160 kB answer.
func BenchmarkUnpack(b *testing.B) {
	compressed, plain := answerOfSize(1, 160_000)
	answer := compressed.withPacked(pack(plain))
	b.Logf("%d bytes: gzip %d, packed %d", len(plain), len(answer.gzipped), len(answer.packed))
	b.Run("unpack", func(b *testing.B) {
		dst := make([]byte, len(plain))
		b.SetBytes(int64(len(plain)))
		for b.Loop() {
			if _, err := unpack(dst, answer); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("inflate", func(b *testing.B) {
		var p inflaters
		var dst bytes.Buffer
		b.SetBytes(int64(len(plain)))
		for b.Loop() {
			dst.Reset()
			if err := p.inflateInto(&dst, answer); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pack", func(b *testing.B) {
		b.SetBytes(int64(len(plain)))
		for b.Loop() {
			pack(plain)
		}
	})
}

// TestAnAnswerIsNotPackedAgainForNothing: wouldKeepPacked guesses a packed
// form's size before it is made; once keepPacked had no room for the one
// made, its exact size is asked for, so that each request does not pack
// the answer again only to see it refused.
func TestAnAnswerIsNotPackedAgainForNothing(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	compressed, plain := answerOfSize(1, 1_000_000)
	packed := pack(plain)
	guess := 2 * int64(len(compressed.gzipped))
	if int64(len(packed)) <= guess {
		t.Fatalf("packed into %d bytes, gzipped into %d: the guess is not short of it", len(packed), len(compressed.gzipped))
	}
	// Room for the entry and the guessed size, not the packed form.
	budget := compressed.size() + 3 + guess
	cache := newResponseCache(time.Hour, budget, clock)
	cache.put(cachePlace{key: "big", ttl: time.Hour}, compressed, 0)
	if !cache.wouldKeepPacked("big", compressed, clock.Now()) {
		t.Fatal("no room for the guessed size")
	}
	cache.keepPacked("big", compressed, compressed.withPacked(packed), clock.Now())
	if got, _ := cache.getString("big", clock.Now()); got.packed != nil {
		t.Fatal("a packed form larger than the room was kept")
	}
	if cache.wouldKeepPacked("big", compressed, clock.Now()) {
		t.Fatal("after its packed form was refused, the answer would be packed again")
	}
}

// TestAnIdleEntryIsCountedWholeWhenItsPlainFormWasNotTaken: an idle entry
// whose plain form is worth too much to go alone still frees its whole
// size when it goes, so no more entries go than the room needs.
func TestAnIdleEntryIsCountedWholeWhenItsPlainFormWasNotTaken(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	idle, idlePlain := largeAnswer(1)
	other, _ := largeAnswer(2)
	asked, askedPlain := largeAnswer(3)
	packed := asked.withPacked(pack(askedPlain))
	grown := int64(len(packed.packed))
	withPlain := idle.withPlain(idlePlain)
	// Room for the three entries and the idle one's plain form; the packed
	// form needs one byte more than the idle entry frees without its plain
	// form.
	budget := withPlain.size() + other.size() + asked.size() + 3*4 + grown - (idle.size() + 4 + 1)
	if idle.size() >= grown {
		t.Fatalf("the idle entry's compressed form (%d bytes) alone makes room for the packed one (%d)", idle.size(), grown)
	}
	cache := newResponseCache(time.Hour, budget, clock)
	cache.put(cachePlace{key: "idle", ttl: time.Hour}, idle, 0)
	// The idle entry, asked for a lot, keeps its plain form.
	for range 1000 {
		cache.getString("idle", clock.Now())
	}
	cache.replace("idle", idle, withPlain, clock.Now())
	if got, _ := cache.getString("idle", clock.Now()); got.plain == nil {
		t.Fatal("the plain form was not kept")
	}
	cache.put(cachePlace{key: "othr", ttl: time.Hour}, other, 0)
	cache.put(cachePlace{key: "askd", ttl: time.Hour}, asked, 0)
	clock.Advance(25 * time.Second)
	cache.getString("othr", clock.Now())
	cache.getString("askd", clock.Now())
	cache.keepPacked("askd", asked, packed, clock.Now())
	if got, _ := cache.getString("askd", clock.Now()); got != packed {
		t.Fatal("the packed form was not kept although the idle entry makes room for it")
	}
	if _, ok := cache.getString("othr", clock.Now()); !ok {
		t.Fatal("an entry in use went too")
	}
}

// TestAPlainFormTakesTheRoomOfPackedFormsAskedForFarLessOften: the plain
// form of an answer asked for a lot may take the room of the packed forms
// of answers asked for at most a fortieth as often, never of others,
// and never the room of their entries.
func TestAPlainFormTakesTheRoomOfPackedFormsAskedForFarLessOften(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	// Room for the hot plain form only once the rare packed form goes.
	cache, hotPacked, hotPlain := hotAndRarePacked(clock, func(rarePacked *cachedAnswer) int64 { return int64(len(rarePacked.packed)) - 1 })
	askHot := func(times int) {
		for range times {
			cache.getString("hot!", clock.Now())
		}
	}
	// The rare answer asked for once, counted as two against the
	// halving: asked for 79 times, the hot one is not yet worth it.
	cache.getString("rare", clock.Now())
	askHot(79)
	if cache.wouldKeepPlain("hot!", hotPacked, clock.Now()) {
		t.Fatal("the plain form would take the room of the packed form of an answer asked for more than 1/40 as often")
	}
	askHot(1)
	if !cache.wouldKeepPlain("hot!", hotPacked, clock.Now()) {
		t.Fatal("the plain form would not take the room of the packed form of an answer asked for 1/40 as often")
	}
	withPlain := hotPacked.withPlain(hotPlain)
	cache.replace("hot!", hotPacked, withPlain, clock.Now())
	if got, _ := cache.getString("hot!", clock.Now()); got != withPlain {
		t.Fatal("the plain form was not kept")
	}
	got, ok := cache.getString("rare", clock.Now())
	if !ok || got.packed != nil || got.gzipped == nil {
		t.Fatalf("the rare answer: cached %v, packed %v; want its entry kept without its packed form", ok, ok && got.packed != nil)
	}
}

// TestAPackedFormStaysForAnAnswerAskedForAsOften: counts are halved by
// whole requests, so an answer asked for once a while ago counts 0; its
// packed form does not go for the plain form of an answer asked for once
// since.
func TestAPackedFormStaysForAnAnswerAskedForAsOften(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	// Room for the hot plain form only once something else goes.
	cache, hotPacked, _ := hotAndRarePacked(clock, func(*cachedAnswer) int64 { return 1 })
	cache.getString("rare", clock.Now())
	clock.Advance(hitHalfLife)
	cache.getString("hot!", clock.Now())
	if cache.wouldKeepPlain("hot!", hotPacked, clock.Now()) {
		t.Fatal("the packed form of an answer asked for once would go for the plain form of another asked for once")
	}
}

// hotAndRarePacked is a cache of two large answers with their packed
// forms, under "hot!" and "rare", with room for both and for the hot
// answer's plain form but for short(the rare answer) bytes; it returns
// the cache, the hot answer and its plain form.
func hotAndRarePacked(clock models.Clock, short func(rarePacked *cachedAnswer) int64) (*responseCache, *cachedAnswer, []byte) {
	hot, hotPlain := largeAnswer(1)
	rare, rarePlain := largeAnswer(2)
	hotPacked := hot.withPacked(pack(hotPlain))
	rarePacked := rare.withPacked(pack(rarePlain))
	budget := hotPacked.size() + rarePacked.size() + 2*4 + int64(len(hotPlain)) - short(rarePacked)
	cache := newResponseCache(time.Hour, budget, clock)
	cache.put(cachePlace{key: "hot!", ttl: time.Hour}, hotPacked, 0)
	cache.put(cachePlace{key: "rare", ttl: time.Hour}, rarePacked, 0)
	return cache, hotPacked, hotPlain
}
