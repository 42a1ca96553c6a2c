package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
)

func TestConcurrentMissesShareOneCall(t *testing.T) {
	// In a synctest bubble, synctest.Wait returns once every caller is
	// blocked: on the shared call, or on a call of its own.
	synctest.Test(t, func(t *testing.T) {
		cache := newResponseCache(time.Minute, 1<<20, models.NewManualClock(time.Unix(0, 0)))
		var calls atomic.Int32
		release := make(chan struct{})
		produce := func(context.Context) (*cachedAnswer, error) {
			calls.Add(1)
			<-release
			return newCachedAnswer([]byte(`[]`)), nil
		}
		const callers = 16
		var wg sync.WaitGroup
		hits := make(chan bool, callers)
		for range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, hit, err := cache.fetch(context.Background(), cache.clock.Now(), "k", time.Second, nil, produce)
				if err != nil {
					t.Error(err)
				}
				hits <- hit
			}()
		}
		synctest.Wait()
		if n := calls.Load(); n != 1 {
			t.Fatalf("%d concurrent misses produced %d times, want 1", callers, n)
		}
		close(release)
		wg.Wait()
		close(hits)
		for hit := range hits {
			if hit {
				t.Fatal("a caller that waited on the shared call reported a cache hit")
			}
		}
		if _, hit, _ := cache.fetch(context.Background(), cache.clock.Now(), "k", time.Second, nil, produce); !hit {
			t.Fatal("the shared answer was not cached")
		}
	})
}

func TestFailuresAreNotCached(t *testing.T) {
	cache := newResponseCache(time.Minute, 1<<20, models.NewManualClock(time.Unix(0, 0)))
	calls := 0
	failing := func(context.Context) (*cachedAnswer, error) {
		calls++
		return nil, errors.New("upstream down")
	}
	for range 2 {
		if _, _, err := cache.fetch(context.Background(), cache.clock.Now(), "k", time.Second, nil, failing); err == nil {
			t.Fatal("no error")
		}
	}
	if calls != 2 {
		t.Fatalf("a failure was served from the cache (%d calls)", calls)
	}
}

func TestCacheStaysWithinItsBudget(t *testing.T) {
	clock := models.NewManualClock(time.Unix(0, 0))
	const budget = 20_000
	cache := newResponseCache(time.Minute, budget, clock)
	body := make([]byte, 1000) // zeros: compressed to a few bytes, kept both ways
	answer := newCachedAnswer(body)
	entry := answer.size() + 1
	for i := range 40 {
		place := cachePlace{key: string(rune('a' + i)), ttl: time.Minute}
		if i%2 == 1 {
			place.group = "G" // history answers share the budget
			entry++
		}
		cache.put(place, answer, cache.generation(place.group))
		if cache.used() > cache.budget {
			t.Fatalf("used %d bytes of a %d budget", cache.used(), cache.budget)
		}
	}
	if cache.used() < budget-2*entry {
		t.Fatalf("used %d bytes of a %d budget after 40 answers of %d: evicted too much", cache.used(), budget, entry)
	}
	if _, ok := cache.getString("a", cache.clock.Now()); ok {
		t.Fatal("the least recently used entry survived")
	}
	if _, ok := cache.getString(string(rune('a'+39)), cache.clock.Now()); !ok {
		t.Fatal("the newest entry was evicted")
	}
	huge := cachePlace{key: "huge", ttl: time.Minute}
	cache.put(huge, newCachedAnswer(randomJSON(50_000)), 0)
	if _, ok := cache.getString("huge", cache.clock.Now()); ok {
		t.Fatal("an answer larger than the budget was stored")
	}
}

// randomJSON is a body of n bytes that compresses poorly.
func randomJSON(n int) []byte {
	body := make([]byte, n)
	x := uint32(1)
	for i := range body {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		body[i] = 'a' + byte(x%26)
	}
	return body
}

func TestLargeAnswersAreKeptCompressedOnly(t *testing.T) {
	var plain []byte
	for i := 0; len(plain) < 40_000; i++ {
		plain = fmt.Appendf(plain, `{"clanRank":%d,"name":"member %d","trophies":%d},`, i%50+1, i%50, 5000+i%97)
	}
	answer := newCachedAnswer(plain)
	if answer.plain != nil || answer.gzipped == nil {
		t.Fatalf("a %d-byte answer kept plain=%d gzipped=%d bytes, want compressed only", len(plain), len(answer.plain), len(answer.gzipped))
	}
	if answer.size() > int64(len(plain))/4 {
		t.Fatalf("a compressed-only answer of %d bytes counts %d bytes", len(plain), answer.size())
	}
	if answer.etag != etagOf(plain) {
		t.Fatal("the ETag is not the plain body's")
	}
	var p inflaters
	for range 2 { // the second time with a pooled reader
		got, err := p.plainBody(answer)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("inflated body differs from the rendered one (%v)", err)
		}
	}
	for range 2 {
		var into bytes.Buffer
		if err := p.inflateInto(&into, answer); err != nil || !bytes.Equal(into.Bytes(), plain) {
			t.Fatalf("body inflated into a buffer differs from the rendered one (%v)", err)
		}
	}
	cut := *answer
	cut.gzipped = answer.gzipped[:len(answer.gzipped)/2]
	if err := p.inflateInto(io.Discard, &cut); err == nil {
		t.Fatal("a truncated compressed answer was inflated without an error")
	}
	small := newCachedAnswer(plain[:2000])
	if small.plain == nil || small.gzipped == nil {
		t.Fatal("a mid-size answer is not kept both ways")
	}
	tiny := newCachedAnswer([]byte(`[]`))
	if tiny.gzipped != nil {
		t.Fatal("a tiny answer was compressed")
	}
}

func TestDroppingAGroupForgetsItsAnswersOnly(t *testing.T) {
	// One shard, and as many shards as there can be.
	for _, budget := range []int64{1 << 20, 2 * maxCacheShards * shardBudget} {
		cache := newResponseCache(time.Minute, budget, models.NewManualClock(time.Unix(0, 0)))
		answer := newCachedAnswer([]byte(`{}`))
		var places []cachePlace
		for i := range 40 {
			places = append(places,
				cachePlace{key: fmt.Sprintf("history/A/%d", i), group: "A", ttl: time.Minute},
				cachePlace{key: fmt.Sprintf("history/B/%d", i), group: "B", ttl: time.Minute},
				cachePlace{key: fmt.Sprintf("player/A%d/battles", i), ttl: time.Minute})
		}
		for _, place := range places {
			cache.put(place, answer, cache.generation(place.group))
		}
		cache.drop("A")
		for _, place := range places {
			if _, ok := cache.getString(place.key, cache.clock.Now()); ok != (place.group != "A") {
				t.Errorf("budget %d: after dropping A, %s cached = %v", budget, place.key, ok)
			}
		}
		cache.dropAllGroups()
		for _, place := range places {
			if _, ok := cache.getString(place.key, cache.clock.Now()); ok != (place.group == "") {
				t.Errorf("budget %d: after dropping every group, %s cached = %v", budget, place.key, ok)
			}
		}
		groups, entries := 0, 0
		for i := range cache.shards {
			g, e := cache.shards[i].counts()
			groups, entries = groups+g, entries+e
		}
		if groups != 0 || entries != 40 {
			t.Fatalf("budget %d: %d groups and %d entries left, want 0 and 40", budget, groups, entries)
		}
	}
}

// TestALargeBudgetIsShardedAndKept: a large budget is split into shards,
// and the cache stays within it however the answers fall on them, each
// shard within its share; an answer larger than a share is not stored.
func TestALargeBudgetIsShardedAndKept(t *testing.T) {
	const budget = 8 * shardBudget
	cache := newResponseCache(time.Minute, budget, models.NewManualClock(time.Unix(0, 0)))
	if len(cache.shards) != 8 {
		t.Fatalf("%d shards for a budget of %d, want 8", len(cache.shards), budget)
	}
	answer := newCachedAnswer(randomJSON(200_000))
	// 34 answers fill a shard; keys spread over the shards by a
	// seeded hash, so many more are stored (with 400, a shard fell short
	// about once in a hundred runs).
	const keys = 2000
	for i := range keys {
		cache.put(cachePlace{key: fmt.Sprintf("player/%d/battles", i), ttl: time.Minute}, answer, 0)
		if cache.used() > budget {
			t.Fatalf("used %d bytes of a %d budget", cache.used(), budget)
		}
	}
	for i := range cache.shards {
		if used := cache.shards[i].usedBytes(); used > budget/8 || used < budget/8-2*answer.size()-64 {
			t.Fatalf("shard %d holds %d bytes of its %d", i, used, budget/8)
		}
	}
	if _, ok := cache.getString(fmt.Sprintf("player/%d/battles", keys-1), cache.clock.Now()); !ok {
		t.Fatal("the newest answer was evicted")
	}
	cache.put(cachePlace{key: "huge", ttl: time.Minute}, newCachedAnswer(randomJSON(2*budget/8)), 0)
	if _, ok := cache.getString("huge", cache.clock.Now()); ok {
		t.Fatal("an answer larger than a shard's share was stored")
	}
}

func TestAnAnswerReadBeforeADropIsNotStored(t *testing.T) {
	cache := newResponseCache(time.Minute, 1<<20, models.NewManualClock(time.Unix(0, 0)))
	place := cachePlace{key: "history/A/1", group: "A", ttl: time.Minute}
	reading := make(chan struct{})
	release := make(chan struct{})
	stale := newCachedAnswer([]byte(`{"stale":true}`))
	done := make(chan *cachedAnswer)
	go func() {
		answer, _, err := cache.fetchPlace(context.Background(), cache.clock.Now(), place, time.Second, func(context.Context) (*cachedAnswer, error) {
			close(reading)
			<-release
			return stale, nil
		})
		if err != nil {
			t.Error(err)
		}
		done <- answer
	}()
	<-reading
	cache.drop("A") // the clan changed while its old state was being read
	fresh := newCachedAnswer([]byte(`{"fresh":true}`))
	answer, hit, err := cache.fetchPlace(context.Background(), cache.clock.Now(), place, time.Second, func(context.Context) (*cachedAnswer, error) {
		return fresh, nil
	})
	if err != nil || hit || answer != fresh {
		t.Fatalf("a request after the change joined the read before it: %v, hit %v", err, hit)
	}
	close(release)
	if got := <-done; got != stale {
		t.Fatal("the caller of the first read did not get its answer")
	}
	if got, ok := cache.getString(place.key, cache.clock.Now()); !ok || got != fresh {
		t.Fatal("the answer read before the change replaced the one read after it")
	}
}

func TestEachSlotKeepsItsOwnLifetime(t *testing.T) {
	clock := models.NewManualClock(time.Unix(0, 0))
	cache := newResponseCache(3*time.Minute, 1<<20, clock)
	answer := newCachedAnswer([]byte(`{}`))
	cache.put(cachePlace{key: "history", group: "A", ttl: time.Minute}, answer, cache.generation("A"))
	cache.put(cachePlace{key: "battles", ttl: cache.ttl}, answer, 0)
	cache.put(cachePlace{key: "uncached", ttl: 0}, answer, 0)
	clock.Advance(time.Minute - time.Nanosecond)
	if _, ok := cache.getString("history", cache.clock.Now()); !ok {
		t.Fatal("the history answer expired early")
	}
	clock.Advance(time.Nanosecond)
	if _, ok := cache.getString("history", cache.clock.Now()); ok {
		t.Fatal("the history answer outlived its TTL")
	}
	if _, ok := cache.getString("battles", cache.clock.Now()); !ok {
		t.Fatal("the upstream-backed answer took the history TTL")
	}
	if _, ok := cache.getString("uncached", cache.clock.Now()); ok {
		t.Fatal("an answer with no TTL was stored")
	}
}

// TestAnExpiredAnswerIsRenewedWhenNothingChanged: at the end of its TTL an
// answer is no longer served, but is still there to be taken over by the
// answer read anew when its body is the same (its compressed form is not
// made again); a changed body, a refusal, or an answer dropped with its
// group is never taken over.
func TestAnExpiredAnswerIsRenewedWhenNothingChanged(t *testing.T) {
	clock := models.NewManualClock(time.Unix(0, 0))
	cache := newResponseCache(time.Minute, 1<<20, clock)
	body := randomJSON(20_000)
	place := cachePlace{key: "history/2PP/0/7/1", group: "2PP", ttl: time.Minute}
	first := newCachedAnswer(body)
	cache.put(place, first, cache.generation(place.group))
	if cache.expired(place.key) != nil {
		t.Fatal("a fresh answer counts as expired")
	}
	clock.Advance(time.Minute)
	if _, hit := cache.getString(place.key, cache.clock.Now()); hit {
		t.Fatal("an answer was served past its TTL")
	}
	previous := cache.expired(place.key)
	if previous != first {
		t.Fatal("the expired answer is gone")
	}
	if renewedAnswer(previous, bytes.Clone(body)) != first {
		t.Fatal("an unchanged body was rendered anew")
	}
	changed := bytes.Clone(body)
	changed[100]++
	if renewed := renewedAnswer(previous, changed); renewed == first || renewed.etag == first.etag {
		t.Fatal("a changed body took over the old answer")
	}
	if renewedAnswer(refusalAnswer(models.ErrNotTracked), []byte("{}")).refusal != nil {
		t.Fatal("a refusal was taken over by a body")
	}
	cache.drop(place.group)
	if cache.expired(place.key) != nil {
		t.Fatal("an answer dropped with its clan can still be taken over")
	}
}

// TestAHitKeepsAnAnswerFromEviction: of answers stored together, the one
// asked again since (a second later) outlives the others.
func TestAHitKeepsAnAnswerFromEviction(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	answer := newCachedAnswer([]byte(`{"a":1}`))
	entry := answer.size() + 1
	cache := newResponseCache(time.Hour, 3*entry, clock)
	for _, key := range []string{"a", "b", "c"} {
		cache.put(cachePlace{key: key, ttl: time.Hour}, answer, 0)
	}
	clock.Advance(time.Second)
	if _, ok := cache.getString("a", clock.Now()); !ok {
		t.Fatal("a is not cached")
	}
	cache.put(cachePlace{key: "d", ttl: time.Hour}, answer, 0)
	for key, want := range map[string]bool{"a": true, "b": false, "c": true, "d": true} {
		if _, ok := cache.getString(key, clock.Now()); ok != want {
			t.Errorf("%s cached = %v, want %v", key, ok, want)
		}
	}
}

// largeAnswer is an answer of about 40 kB kept compressed only, told
// apart by n, and its plain body.
func largeAnswer(n int) (*cachedAnswer, []byte) { return answerOfSize(n, 40_000) }

// answerOfSize is an answer of about size bytes (over gzipOnlySize) kept
// compressed only, told apart by n, and its plain body.
func answerOfSize(n, size int) (*cachedAnswer, []byte) {
	var plain []byte
	for i := 0; len(plain) < size; i++ {
		plain = fmt.Appendf(plain, `{"answer":%d,"rank":%d,"name":"member %d"},`, n, i%50+1, i)
	}
	return newCachedAnswer(plain), plain
}

func TestAPlainFormIsKeptBesideTheCompressedOneOnceAsked(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	compressed, plain := largeAnswer(1)
	cache := newResponseCache(time.Hour, 4*int64(len(plain)), clock)
	cache.put(cachePlace{key: "big", ttl: time.Hour}, compressed, 0)
	before := cache.used()
	completed := compressed.withPlain(plain)
	cache.replace("big", compressed, completed, clock.Now())
	if got, ok := cache.getString("big", clock.Now()); !ok || got != completed {
		t.Fatal("the answer with its plain form did not replace the compressed-only one")
	}
	if grown := cache.used() - before; grown < int64(len(plain)) {
		t.Fatalf("the cache's use grew by %d bytes for a plain form of %d", grown, len(plain))
	}
	// A replacement of an answer that is no longer the cached one is
	// ignored.
	cache.replace("big", compressed, compressed.withPlain(plain), clock.Now())
	if got, _ := cache.getString("big", clock.Now()); got != completed {
		t.Fatal("a stale replacement overwrote the cached answer")
	}
}

// TestPlainFormsGoBeforeEntries: room for a plain form, or for a new
// entry, is made by dropping the least recently used plain forms of other
// entries, which stay cached compressed; no entry is evicted while a
// plain form can go.
func TestPlainFormsGoBeforeEntries(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	first, firstPlain := largeAnswer(1)
	second, secondPlain := largeAnswer(2)
	filler := newCachedAnswer([]byte(`{"a":1}`))
	// Room for both compressed answers, one plain form and the fillers.
	budget := first.size() + second.size() + int64(len(firstPlain)) + 3*(filler.size()+2) + 64
	cache := newResponseCache(time.Hour, budget, clock)
	cache.put(cachePlace{key: "b1", ttl: time.Hour}, first, 0)
	cache.put(cachePlace{key: "b2", ttl: time.Hour}, second, 0)
	for _, key := range []string{"f1", "f2", "f3"} {
		cache.put(cachePlace{key: key, ttl: time.Hour}, filler, 0)
	}
	cache.replace("b1", first, first.withPlain(firstPlain), clock.Now())
	// b2, asked for more often than b1, takes the room of b1's plain form.
	for range 2 {
		cache.getString("b2", clock.Now())
	}
	cache.replace("b2", second, second.withPlain(secondPlain), clock.Now())
	for key, wantPlain := range map[string]bool{"b1": false, "b2": true} {
		got, ok := cache.getString(key, clock.Now())
		if !ok || got.gzipped == nil || (got.plain != nil) != wantPlain {
			t.Fatalf("%s: cached %v, plain form kept %v, want %v", key, ok, got != nil && got.plain != nil, wantPlain)
		}
	}
	for _, key := range []string{"f1", "f2", "f3"} {
		if _, ok := cache.getString(key, clock.Now()); !ok {
			t.Fatalf("%s was evicted to make room for a plain form", key)
		}
	}
	// A new entry that needs room takes it from the plain form first.
	requirePlainFormGoesFirst(t, cache, clock, "b2", "b1", "f1", "f2", "f3")
	if cache.used() > budget {
		t.Fatalf("used %d of %d", cache.used(), budget)
	}
}

// requirePlainFormGoesFirst stores a new large answer that needs room, and
// fails unless the room came from the plain form of withPlain, with it
// and the entries of others still cached.
func requirePlainFormGoesFirst(t *testing.T, cache *responseCache, clock models.Clock, withPlain string, others ...string) {
	t.Helper()
	big, _ := largeAnswer(3)
	cache.put(cachePlace{key: "new", ttl: time.Hour}, big, 0)
	for _, key := range append([]string{withPlain, "new"}, others...) {
		if _, ok := cache.getString(key, clock.Now()); !ok {
			t.Fatalf("%s was evicted while the plain form of %s could go", key, withPlain)
		}
	}
	if got, _ := cache.getString(withPlain, clock.Now()); got.plain != nil {
		t.Fatalf("the plain form of %s was kept and an entry made room instead", withPlain)
	}
}

// roomForOnePlainForm is a cache holding two large answers, compressed,
// with room for one plain form beside them.
type roomForOnePlainForm struct {
	t      *testing.T
	clock  *models.ManualClock
	cache  *responseCache
	budget int64
	// answers and plains are the two answers and their plain bodies, by
	// key.
	answers map[string]*cachedAnswer
	plains  map[string][]byte
}

func newRoomForOnePlainForm(t *testing.T, clock *models.ManualClock, first, second string) *roomForOnePlainForm {
	r := &roomForOnePlainForm{t: t, clock: clock, answers: map[string]*cachedAnswer{}, plains: map[string][]byte{}}
	for i, key := range []string{first, second} {
		r.answers[key], r.plains[key] = largeAnswer(i + 1)
		r.budget += r.answers[key].size()
	}
	r.budget += int64(max(len(r.plains[first]), len(r.plains[second]))) + 64
	r.cache = newResponseCache(time.Hour, r.budget, clock)
	for key, answer := range r.answers {
		r.cache.put(cachePlace{key: key, ttl: time.Hour}, answer, 0)
	}
	return r
}

// hit asks for the answer of key times times.
func (r *roomForOnePlainForm) hit(key string, times int) {
	r.t.Helper()
	for range times {
		if _, ok := r.cache.getString(key, r.clock.Now()); !ok {
			r.t.Fatalf("%s is not cached", key)
		}
	}
}

// offerPlain offers the plain form of key's answer to the cache, as the
// request of a client without gzip does.
func (r *roomForOnePlainForm) offerPlain(key string) {
	answer := r.answers[key]
	r.cache.replace(key, answer, answer.withPlain(r.plains[key]), r.clock.Now())
}

// plainKept asks for the answer of key (one request) and tells whether
// it comes with its plain form.
func (r *roomForOnePlainForm) plainKept(key string) bool {
	got, ok := r.cache.getString(key, r.clock.Now())
	return ok && got.plain != nil
}

// TestAPlainFormTakesTheRoomOfAnotherOnlyWhenAskedMoreOften: with room
// for one plain form, the answer asked for most keeps it; one asked for
// as often or less is served inflated and not kept.
func TestAPlainFormTakesTheRoomOfAnotherOnlyWhenAskedMoreOften(t *testing.T) {
	r := newRoomForOnePlainForm(t, models.NewManualClock(time.Unix(1000, 0)), "popular", "rare")
	r.hit("popular", 5)
	r.offerPlain("popular")
	r.hit("rare", 5)
	r.offerPlain("rare")
	if !r.plainKept("popular") || r.plainKept("rare") {
		t.Fatal("an answer asked for as often took the room of another's plain form")
	}
	// The two lookups above counted once each; three more for rare and it
	// is asked for more often.
	r.hit("rare", 3)
	r.offerPlain("rare")
	if r.plainKept("popular") || !r.plainKept("rare") {
		t.Fatal("the answer asked for more often did not take the room of the other's plain form")
	}
	if r.cache.used() > r.budget {
		t.Fatalf("used %d of %d", r.cache.used(), r.budget)
	}
}

// TestARenewedAnswerKeepsItsPlainFormAsAnExtra: an answer stored again
// under its key at the end of its lifetime (a history whose data still
// holds) keeps its plain form as an extra, the first thing to go when room is needed, and keeps its count
// of requests, so that an answer asked for less often cannot take the
// room of its plain form.
func TestARenewedAnswerKeepsItsPlainFormAsAnExtra(t *testing.T) {
	clock := models.NewManualClock(time.Unix(0, 0).Add(10 * hitHalfLife))
	kept, keptPlain := largeAnswer(1)
	rare, rarePlain := largeAnswer(2)
	filler := newCachedAnswer([]byte(`{"a":1}`))
	// Room for both compressed answers, one plain form and the fillers.
	budget := kept.size() + rare.size() + int64(max(len(keptPlain), len(rarePlain))) + 3*(filler.size()+2) + 64
	cache := newResponseCache(time.Hour, budget, clock)
	// Within one half-life of the counts of requests.
	lifetime := hitHalfLife / 2
	cache.put(cachePlace{key: "kept", ttl: lifetime}, kept, 0)
	cache.put(cachePlace{key: "rare", ttl: time.Hour}, rare, 0)
	for _, key := range []string{"f1", "f2", "f3"} {
		cache.put(cachePlace{key: key, ttl: time.Hour}, filler, 0)
	}
	for range 5 {
		cache.getString("kept", clock.Now())
	}
	completed := kept.withPlain(keptPlain)
	cache.replace("kept", kept, completed, clock.Now())
	// Its lifetime ends, and what it was read from still holds: the same
	// answer is stored again, plain form and all.
	clock.Advance(lifetime)
	if cache.expired("kept") != completed {
		t.Fatal("the answer whose lifetime ended is not the one with its plain form")
	}
	cache.put(cachePlace{key: "kept", ttl: lifetime}, completed, 0)
	if got, ok := cache.getString("kept", clock.Now()); !ok || got.plain == nil {
		t.Fatal("the renewed answer lost its plain form")
	}
	// rare, asked for less often than kept was before and after its
	// renewal, cannot take the room of its plain form.
	for range 3 {
		cache.getString("rare", clock.Now())
	}
	if cache.wouldKeepPlain("rare", rare, clock.Now()) {
		t.Fatal("the renewal forgot how often the answer is asked for")
	}
	// A new entry that needs room takes it from the plain form first.
	requirePlainFormGoesFirst(t, cache, clock, "kept", "rare", "f1", "f2", "f3")
	if cache.used() > budget {
		t.Fatalf("used %d of %d", cache.used(), budget)
	}
}

// TestNoPlainFormGoesForNothing: a plain form that needs the room of two
// others takes it only when both were asked for less often; when one of
// them was asked for more, it is not kept, and neither of them goes.
func TestNoPlainFormGoesForNothing(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	rare, rarePlain := answerOfSize(1, 40_000)
	popular, popularPlain := answerOfSize(2, 40_000)
	wide, widePlain := answerOfSize(3, 70_000)
	budget := rare.size() + popular.size() + wide.size() + int64(len(rarePlain)+len(popularPlain)) + 3*64
	cache := newResponseCache(time.Hour, budget, clock)
	for key, answer := range map[string]*cachedAnswer{"rare": rare, "popular": popular, "wide": wide} {
		cache.put(cachePlace{key: key, ttl: time.Hour}, answer, 0)
	}
	hit := func(key string, times int) {
		for range times {
			if _, ok := cache.getString(key, clock.Now()); !ok {
				t.Fatalf("%s is not cached", key)
			}
		}
	}
	hit("rare", 1)
	cache.replace("rare", rare, rare.withPlain(rarePlain), clock.Now())
	hit("popular", 10)
	cache.replace("popular", popular, popular.withPlain(popularPlain), clock.Now())
	plainKept := func(key string) bool {
		got, ok := cache.getString(key, clock.Now())
		return ok && got.plain != nil
	}
	// wide needs the room of both; rare (least recently used) was asked
	// for less often, popular more.
	hit("wide", 5)
	if cache.wouldKeepPlain("wide", wide, clock.Now()) {
		t.Fatal("a plain form would take the room of one asked for more often")
	}
	cache.replace("wide", wide, wide.withPlain(widePlain), clock.Now())
	if plainKept("wide") || !plainKept("rare") || !plainKept("popular") {
		t.Fatal("a plain form that was not kept made another go")
	}
	// Asked for more often than both, it takes their room.
	hit("wide", 20)
	cache.replace("wide", wide, wide.withPlain(widePlain), clock.Now())
	if !plainKept("wide") || plainKept("rare") || plainKept("popular") {
		t.Fatal("the plain form asked for most did not take the room of the two others")
	}
	if cache.used() > budget {
		t.Fatalf("used %d of %d", cache.used(), budget)
	}
}

// TestAPlainFormGoesToTheAnswerAskedForNow: counts of requests fade, so an
// answer asked for a lot some minutes ago, and no longer, gives its plain
// form to one asked for now, though fewer times in all.
func TestAPlainFormGoesToTheAnswerAskedForNow(t *testing.T) {
	// At the start of a half-life, so that half of one passes within it.
	clock := models.NewManualClock(time.Unix(0, 0).Add(10 * hitHalfLife))
	r := newRoomForOnePlainForm(t, clock, "former", "current")
	r.hit("former", 100)
	r.offerPlain("former")
	// Within the half-life, 20 requests do not outweigh 100.
	clock.Advance(hitHalfLife / 2)
	r.hit("current", 20)
	r.offerPlain("current")
	if !r.plainKept("former") || r.plainKept("current") {
		t.Fatal("an answer asked for less often, within the half-life, took the other's plain form")
	}
	// Four half-lives on, the former's 101 requests count as 6 and the
	// current's 21 as 1: ten more requests, and the current one weighs
	// more.
	clock.Advance(4 * hitHalfLife)
	r.hit("current", 10)
	r.offerPlain("current")
	if !r.plainKept("current") || r.plainKept("former") {
		t.Fatal("the answer asked for now did not take the plain form of one asked for minutes ago")
	}
}

func TestAPlainFormTooLargeForTheBudgetIsNotKept(t *testing.T) {
	clock := models.NewManualClock(time.Unix(1000, 0))
	var plain []byte
	for i := 0; len(plain) < 40_000; i++ {
		plain = fmt.Appendf(plain, `{"rank":%d},`, i)
	}
	compressed := newCachedAnswer(plain)
	cache := newResponseCache(time.Hour, compressed.size()+100, clock)
	cache.put(cachePlace{key: "big", ttl: time.Hour}, compressed, 0)
	cache.replace("big", compressed, compressed.withPlain(plain), clock.Now())
	if got, ok := cache.getString("big", clock.Now()); !ok || got != compressed {
		t.Fatal("the compressed answer was not kept as it was")
	}
}

// TestCacheHitsAndChangesRunConcurrently is for the race detector: hits
// and stores run while evictions and drops change the shards.
func TestCacheHitsAndChangesRunConcurrently(t *testing.T) {
	clock := models.NewManualClock(time.Unix(0, 0))
	answer := newCachedAnswer([]byte(`{}`))
	cache := newResponseCache(time.Hour, 20*(answer.size()+16), clock)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				key := fmt.Sprintf("history/%d/%d", (w+i)%7, i%30)
				if w%2 == 0 {
					cache.put(cachePlace{key: key, group: fmt.Sprint((w + i) % 7), ttl: time.Hour}, answer, cache.generation(fmt.Sprint((w+i)%7)))
				} else {
					cache.getString(key, clock.Now())
					cache.get([]byte(key), clock.Now())
				}
				if i%50 == 0 {
					cache.drop(fmt.Sprint(i % 7))
				}
			}
		}()
	}
	wg.Wait()
	if cache.used() > cache.budget {
		t.Fatalf("used %d of %d", cache.used(), cache.budget)
	}
}

// used is the memory the cached answers take, by their sizes.
func (c *responseCache) used() int64 {
	var n int64
	for i := range c.shards {
		n += c.shards[i].usedBytes()
	}
	return n
}

// usedBytes is the size of the shard's entries.
func (sh *cacheShard) usedBytes() int64 {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.used
}

// counts are the shard's groups and entries.
func (sh *cacheShard) counts() (groups, entries int) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return len(sh.groups), len(sh.entries)
}

// TestHeadersCountAgainstTheBudget: an answer's headers are kept with
// it, so they count against the budget like its bodies: the search pages
// of a long name and long cursors, whose Link headers are far longer than
// their bodies, stay within it.
func TestHeadersCountAgainstTheBudget(t *testing.T) {
	const budget = 50_000
	cache := newResponseCache(time.Minute, budget, models.NewManualClock(time.Unix(0, 0)))
	cursor := strings.Repeat("c", searchCursorMax)
	for i := range 200 {
		q := legacy.ClanSearchQuery{Name: fmt.Sprintf("%050d", i), MinScore: -1, Limit: 50, After: cursor}
		answer, err := renderSearchPage(q, legacy.ClanSearchPage{After: cursor, Before: cursor})
		if err != nil {
			t.Fatal(err)
		}
		key := string(searchCacheKey(nil, q))
		cache.put(cachePlace{key: key, ttl: time.Minute}, answer, 0)
		if held := cache.heldBytes(); held > budget {
			t.Fatalf("after %d search pages, their keys, bodies and headers take %d bytes of a %d budget", i+1, held, budget)
		}
	}
}

// heldBytes is what the cache's entries keep besides the fixed overhead
// of each: keys, groups, bodies and headers.
func (c *responseCache) heldBytes() int64 {
	var held int64
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		for element := sh.order.Front(); element != nil; element = element.Next() {
			entry := element.Value.(*cacheEntry)
			a := entry.answer
			held += int64(len(entry.key) + len(entry.group) + len(a.plain) + len(a.gzipped) + len(a.packed))
			for _, h := range a.headers {
				held += int64(len(h[0]) + len(h[1]))
			}
		}
		sh.mu.Unlock()
	}
	return held
}
