package api

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

// answerVersion is one rendered version of a key's answer and its forms.
type answerVersion struct {
	compressed *cachedAnswer
	plain      []byte
	packed     []byte
}

// TestTheCacheAccountsForEveryFormUnderRandomUse drives one shard with
// random puts, gets, replaces, keepPacked, expired look-ups, group drops
// and clock moves, and checks the shard's accounting after each step
// (checkShard); it also checks that roomLocked without take and with take
// agree, and that take never drops the entry it makes room for.
func TestTheCacheAccountsForEveryFormUnderRandomUse(t *testing.T) {
	const keys = 14
	variants := make([][]answerVersion, keys)
	for k := range keys {
		for v := range 3 {
			size := 9_000 + (k*7919+v*104729)%50_000
			c, p := answerOfSize(k*10+v, size)
			variants[k] = append(variants[k], answerVersion{compressed: c, plain: p, packed: pack(p)})
		}
	}
	groups := []string{"", "", "g1", "g2"}
	seeds := uint64(300)
	if testing.Short() {
		seeds = 30
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		clock := models.NewManualClock(time.Unix(1000, 0))
		budget := int64(60_000 + rng.IntN(200_000))
		cache := newResponseCache(time.Duration(1+rng.IntN(60))*time.Second, budget, clock)
		if len(cache.shards) != 1 {
			t.Fatal("want one shard")
		}
		sh := &cache.shards[0]
		for step := range 3000 {
			k := rng.IntN(keys)
			key := fmt.Sprintf("k%d", k)
			group := groups[k%len(groups)]
			variant := variants[k][rng.IntN(3)]
			now := clock.Now()
			var op string
			switch r := rng.IntN(100); {
			case r < 20:
				op = "put"
				answer := variant.compressed
				switch rng.IntN(4) {
				case 1:
					answer = answer.withPlain(variant.plain)
				case 2:
					answer = answer.withPacked(variant.packed)
				case 3:
					answer = answer.withPacked(variant.packed).withPlain(variant.plain)
				}
				cache.put(cachePlace{key: key, group: group, ttl: time.Duration(1+rng.IntN(90)) * time.Second}, answer, cache.generation(group))
			case r < 45:
				op = "get"
				cache.getString(key, now)
			case r < 60:
				op = "keepPacked"
				current, ok := cache.getString(key, now)
				if !ok || current.plain != nil || current.packed != nil {
					continue
				}
				if rng.IntN(2) == 0 && !cache.wouldKeepPacked(key, current, now) {
					continue
				}
				v := versionOf(variants[k], current)
				cache.keepPacked(key, current, current.withPacked(v.packed), now)
			case r < 75:
				op = "replace"
				current, ok := cache.getString(key, now)
				if !ok || current.plain != nil {
					continue
				}
				if rng.IntN(2) == 0 && !cache.wouldKeepPlain(key, current, now) {
					continue
				}
				v := versionOf(variants[k], current)
				cache.replace(key, current, current.withPlain(v.plain), now)
			case r < 80:
				op = "stale"
				// A replacement of an answer no longer cached.
				stale := variant.compressed
				cache.keepPacked(key, stale, stale.withPacked(variant.packed), now)
				cache.replace(key, stale, stale.withPlain(variant.plain), now)
			case r < 84:
				op = "expired"
				if previous := cache.expired(key); previous != nil {
					cache.put(cachePlace{key: key, group: group, ttl: time.Minute}, previous, cache.generation(group))
				}
			case r < 86:
				op = "drop"
				cache.drop(groups[2+rng.IntN(2)])
			case r < 87:
				op = "dropAll"
				cache.dropAllGroups()
			case r < 95:
				op = "room"
				sh.mu.Lock()
				if element := sh.entries[key]; element != nil {
					entry := element.Value.(*cacheEntry)
					grown := int64(rng.IntN(40_000))
					kind := []form{plainForm, packedForm}[rng.IntN(2)]
					if sh.roomLocked(entry, grown, kind, now, false) {
						if !sh.roomLocked(entry, grown, kind, now, true) {
							sh.mu.Unlock()
							t.Fatalf("seed %d step %d: the take pass refused what the check allowed", seed, step)
						}
						if sh.entries[key] != element {
							sh.mu.Unlock()
							t.Fatalf("seed %d step %d: the take pass evicted the entry it made room for", seed, step)
						}
						if sh.used+grown > sh.budget {
							sh.mu.Unlock()
							t.Fatalf("seed %d step %d: made room leaves used %d + %d > budget %d", seed, step, sh.used, grown, sh.budget)
						}
					}
				}
				sh.mu.Unlock()
			default:
				op = "advance"
				clock.Advance(time.Duration(rng.IntN(15_000)) * time.Millisecond)
			}
			if err := checkShard(sh); err != nil {
				t.Fatalf("seed %d step %d after %s %s: %v", seed, step, op, key, err)
			}
		}
	}
}

// versionOf is the version a is of.
func versionOf(vs []answerVersion, a *cachedAnswer) answerVersion {
	for _, v := range vs {
		if v.compressed.etag == a.etag {
			return v
		}
	}
	panic("no variant")
}

// checkShard checks a shard's accounting: its index, order, extras and
// groups agree; each entry's size is its answer's; the sizes add up to
// what the shard counts as used, within its budget.
func checkShard(sh *cacheShard) error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	var sum int64
	withExtra := map[*cacheEntry]bool{}
	if sh.order.Len() != len(sh.entries) {
		return fmt.Errorf("order %d, index %d", sh.order.Len(), len(sh.entries))
	}
	for element := sh.order.Front(); element != nil; element = element.Next() {
		entry := element.Value.(*cacheEntry)
		if sh.entries[entry.key] != element {
			return fmt.Errorf("%s: index does not point at its element", entry.key)
		}
		if want := entry.answer.size() + int64(len(entry.key)+len(entry.group)); entry.size != want {
			return fmt.Errorf("%s: size %d, answer says %d", entry.key, entry.size, want)
		}
		if (entry.extra != nil) != entry.answer.hasExtraPlain() {
			return fmt.Errorf("%s: extra element %v, extra plain form %v", entry.key, entry.extra != nil, entry.answer.hasExtraPlain())
		}
		if entry.extra != nil {
			withExtra[entry] = true
		}
		if entry.group != "" {
			if _, ok := sh.groups[entry.group][entry.key]; !ok {
				return fmt.Errorf("%s: missing from its group", entry.key)
			}
		}
		sum += entry.size
	}
	if sum != sh.used {
		return fmt.Errorf("entries sum to %d, used %d", sum, sh.used)
	}
	if sh.used > sh.budget {
		return fmt.Errorf("used %d over budget %d", sh.used, sh.budget)
	}
	packed := 0
	for element := sh.order.Front(); element != nil; element = element.Next() {
		if entry := element.Value.(*cacheEntry); entry.answer.packed != nil {
			packed++
			if entry.packedElement == nil || entry.packedElement.Value != entry {
				return fmt.Errorf("%s: keeps a packed form and is not in the packed list", entry.key)
			}
		}
	}
	if sh.packed.Len() != packed {
		return fmt.Errorf("packed list %d, entries with packed forms %d", sh.packed.Len(), packed)
	}
	if sh.extras.Len() != len(withExtra) {
		return fmt.Errorf("extras list %d, entries with extras %d", sh.extras.Len(), len(withExtra))
	}
	for element := sh.extras.Front(); element != nil; element = element.Next() {
		entry := element.Value.(*cacheEntry)
		if !withExtra[entry] || entry.extra != element {
			return fmt.Errorf("%s: in extras but not an entry with that extra", entry.key)
		}
	}
	return nil
}
