package keys

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

// testEntry is a cacheID and a digest of the cache tests, told apart by n.
func testEntry(n int) (cacheID, digest) {
	var id cacheID
	var d digest
	id[0], id[1], id[2] = byte(n), byte(n>>8), byte(n>>16)
	id[32], id[33], id[34] = byte(n), byte(n>>8), byte(n>>16)
	d[0], d[1], d[2] = byte(n), byte(n>>8), byte(n>>16)
	return id, d
}

func TestVerifyCacheStaysWithinItsSize(t *testing.T) {
	const size = 64
	cache := newVerifyCache(size, time.Second, time.Second)
	unknown := errors.New("unknown")
	for i := range 10 * size {
		id, d := testEntry(i)
		cache.put(&id, &d, verdict{err: unknown}, 0, cache.startLookup())
	}
	if n := cache.len(); n > size || n < size/2 {
		t.Fatalf("cache holds %d verdicts after %d puts, want at most %d (and not emptied)", n, 10*size, size)
	}
}

func TestVerifyCacheDropsALookupThatRacedWithAForget(t *testing.T) {
	cache := newVerifyCache(16, time.Second, time.Second)
	id, d := testEntry(1)
	generation := cache.startLookup()
	cache.forget([][]byte{d[:]})
	cache.put(&id, &d, verdict{}, 0, generation)
	if _, ok := cache.get(&id, 0); ok {
		t.Fatal("a verdict read before a forget was cached after it")
	}
	cache.put(&id, &d, verdict{}, 0, cache.startLookup())
	if _, ok := cache.get(&id, int64(time.Second)-1); !ok {
		t.Fatal("a verdict read after the forget was not cached")
	}
	if _, ok := cache.get(&id, int64(time.Second)); ok {
		t.Fatal("a verdict was served at its expiry")
	}
}

// TestVerifyCacheForgetsByDigest: a forget names keys by lookup digest
// and drops exactly their verdicts, wherever they are in the table.
func TestVerifyCacheForgetsByDigest(t *testing.T) {
	cache := newVerifyCache(1024, time.Second, time.Second)
	for i := range 100 {
		id, d := testEntry(i)
		cache.put(&id, &d, verdict{identity: Identity{KeyID: int64(i)}}, 0, cache.startLookup())
	}
	_, d7 := testEntry(7)
	_, d42 := testEntry(42)
	cache.forget([][]byte{d7[:], d42[:], []byte("short")})
	for i := range 100 {
		id, _ := testEntry(i)
		_, ok := cache.get(&id, 0)
		if forgotten := i == 7 || i == 42; ok == forgotten {
			t.Fatalf("key %d: cached %v after the forget", i, ok)
		}
	}
}

// TestUnknownKeysNeverPushKnownKeysOut: a flood of verdicts of unknown
// keys stays within its own bound and leaves every known key's verdict
// cached.
func TestUnknownKeysNeverPushKnownKeysOut(t *testing.T) {
	const size = 64
	cache := newVerifyCache(size, time.Minute, time.Minute)
	for i := range size {
		id, d := testEntry(i)
		cache.put(&id, &d, verdict{identity: Identity{KeyID: int64(i)}}, 0, cache.startLookup())
	}
	for i := size; i < 100*size; i++ {
		id, d := testEntry(i)
		cache.put(&id, &d, verdict{err: models.ErrUnknownKey}, 0, cache.startLookup())
	}
	for i := range size {
		id, _ := testEntry(i)
		if v, ok := cache.get(&id, 0); !ok || v.identity.KeyID != int64(i) {
			t.Fatalf("known key %d was pushed out by unknown keys", i)
		}
	}
	if n := cache.len(); n != size+size/unknownShare {
		t.Fatalf("cache holds %d verdicts, want %d known and %d unknown", n, size, size/unknownShare)
	}
	// A key that was unknown and then issued is served as known.
	id, d := testEntry(100*size - 1)
	cache.put(&id, &d, verdict{identity: Identity{KeyID: 7}}, 0, cache.startLookup())
	if v, ok := cache.get(&id, 0); !ok || v.err != nil || v.identity.KeyID != 7 {
		t.Fatal("a key's new verdict did not replace its unknown one")
	}
}

// TestVerifyCacheEvictsTheLeastRecentlyUsedVerdict: at its bound, the
// cache drops the verdict asked for longest ago, not one in use.
func TestVerifyCacheEvictsTheLeastRecentlyUsedVerdict(t *testing.T) {
	cache := newVerifyCache(2, time.Minute, time.Minute)
	used, usedDigest := testEntry(1)
	idle, idleDigest := testEntry(2)
	cache.put(&used, &usedDigest, verdict{}, 0, cache.startLookup())
	cache.put(&idle, &idleDigest, verdict{}, 0, cache.startLookup())
	if _, ok := cache.get(&used, int64(time.Second)); !ok {
		t.Fatal("a fresh verdict is not cached")
	}
	next, nextDigest := testEntry(3)
	cache.put(&next, &nextDigest, verdict{}, int64(2*time.Second), cache.startLookup())
	if _, ok := cache.get(&used, int64(2*time.Second)); !ok {
		t.Fatal("the verdict in use was evicted")
	}
	if _, ok := cache.get(&idle, int64(2*time.Second)); ok {
		t.Fatal("the verdict asked for longest ago was kept past the bound")
	}
}

// TestACachedVerdictRecordsUsesToTheSecond: hits of a cached verdict
// record a use of its key at most once a second, counted from the lookup.
func TestACachedVerdictRecordsUsesToTheSecond(t *testing.T) {
	cache := newVerifyCache(16, time.Minute, time.Minute)
	id, d := testEntry(1)
	use := &keyUse{keyID: 1}
	cache.put(&id, &d, verdict{use: use}, useAt(0), cache.startLookup())
	for _, hit := range []struct {
		at   float64
		want float64 // the key's last use afterwards; 0: none recorded
	}{
		{0.5, 0},
		{1, 1},
		{1.9, 1},
		{2.5, 2.5},
	} {
		v, ok := cache.get(&id, useAt(hit.at))
		if !ok {
			t.Fatalf("hit at %vs: not cached", hit.at)
		}
		v.noteUse(useAt(hit.at))
		want := int64(0)
		if hit.want != 0 {
			want = useAt(hit.want)
		}
		if got := use.latest.Load(); got != want {
			t.Fatalf("after a hit at %vs: last use %d, want %d", hit.at, got, want)
		}
	}
}

// TestVerifyCacheReadersRaceWritersSafely: readers that race with puts,
// evictions and forgets (run it with -race) miss at worst,
// never getting the verdict of another key; once writers stop, what is
// stored is served and the cache fills to its size.
func TestVerifyCacheReadersRaceWritersSafely(t *testing.T) {
	const keys, size = 2000, 500
	cache := newVerifyCache(size, time.Minute, time.Minute)
	put := func(i int) {
		id, d := testEntry(i)
		cache.put(&id, &d, verdict{identity: Identity{KeyID: int64(i)}}, 0, cache.startLookup())
	}
	var readers, writers sync.WaitGroup
	stop := make(chan struct{})
	var wrong sync.Map
	for r := range 4 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for i := r; ; i = (i + 7) % keys {
				select {
				case <-stop:
					return
				default:
				}
				id, _ := testEntry(i)
				if v, ok := cache.get(&id, 0); ok && v.identity.KeyID != int64(i) {
					wrong.Store(i, v.identity.KeyID)
				}
			}
		}()
	}
	for w := range 2 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for round := range 5 {
				for i := w; i < keys; i += 2 {
					put(i)
					if i%97 == round {
						_, d := testEntry(i)
						cache.forget([][]byte{d[:]})
					}
				}
			}
		}()
	}
	writers.Wait()
	close(stop)
	readers.Wait()
	wrong.Range(func(key, got any) bool {
		t.Errorf("key %d got the verdict of key %d", key, got)
		return true
	})
	// The last writes may have been forgets: at most its size.
	if n := cache.len(); n > size {
		t.Fatalf("cache holds %d verdicts, more than its size %d", n, size)
	}
	for i := range size {
		put(i)
		id, _ := testEntry(i)
		if v, ok := cache.get(&id, 0); !ok || v.identity.KeyID != int64(i) {
			t.Fatalf("key %d: not served right after it was stored", i)
		}
	}
	if n := cache.len(); n != size {
		t.Fatalf("after %d puts of distinct keys the cache holds %d verdicts, want %d", size, n, size)
	}
}

// BenchmarkVerifyCacheHitsOfManyKeys is the verdict cache as an API under
// load uses it: hits on every core at once, spread over 10,000 keys.
func BenchmarkVerifyCacheHitsOfManyKeys(b *testing.B) {
	const keys = 10_000
	cache := newVerifyCache(DefaultCacheSize, time.Minute, time.Minute)
	ids := make([]cacheID, keys)
	for i := range ids {
		var d digest
		ids[i], d = testEntry(i)
		cache.put(&ids[i], &d, verdict{identity: Identity{KeyID: int64(i)}}, 0, cache.startLookup())
	}
	var next atomic.Uint64
	b.RunParallel(func(pb *testing.PB) {
		// Each goroutine walks the keys from its own place, by a stride
		// prime to their count.
		i := int(next.Add(1) * 7919 % keys)
		for pb.Next() {
			if _, ok := cache.get(&ids[i], 0); !ok {
				b.Fatal("a cached verdict was not found")
			}
			i = (i + 104_729) % keys
		}
	})
}

// TestALargeVerifyCacheIsShardedWithinItsBounds: a cache of the default
// size is split into shards, together within its size for known keys and
// its share for unknown ones, a flood of unknown keys pushing no known
// one out, and a forget reaching every shard.
func TestALargeVerifyCacheIsShardedWithinItsBounds(t *testing.T) {
	const size = DefaultCacheSize
	cache := newVerifyCache(size, time.Minute, time.Minute)
	if len(cache.shards) < 2 {
		t.Fatalf("a cache of %d verdicts has %d shard", size, len(cache.shards))
	}
	if small := newVerifyCache(2*minVerdictsPerShard-1, time.Minute, time.Minute); len(small.shards) != 1 {
		t.Fatalf("a cache of %d verdicts has %d shards, want 1", 2*minVerdictsPerShard-1, len(small.shards))
	}
	for i := range 2 * size {
		id, d := testEntry(i)
		cache.put(&id, &d, verdict{identity: Identity{KeyID: int64(i)}}, 0, cache.startLookup())
	}
	if n := cache.len(); n > size || n < size*9/10 {
		t.Fatalf("cache holds %d verdicts after %d puts of known keys, want at most %d and not far fewer", n, 2*size, size)
	}
	// The last size/2 keys stored are the most recently used of their
	// shards: all still cached.
	for i := 2*size - size/2; i < 2*size; i++ {
		if id, _ := testEntry(i); !cachedAs(cache, &id, int64(i)) {
			t.Fatalf("known key %d, among the last stored, is not cached", i)
		}
	}
	for i := 2 * size; i < 4*size; i++ {
		id, d := testEntry(i)
		cache.put(&id, &d, verdict{err: models.ErrUnknownKey}, 0, cache.startLookup())
	}
	if n := cache.len(); n > size+size/unknownShare {
		t.Fatalf("cache holds %d verdicts, more than %d known and %d unknown", n, size, size/unknownShare)
	}
	var forgotten [][]byte
	for i := 2*size - 64; i < 2*size; i++ {
		_, d := testEntry(i)
		forgotten = append(forgotten, d[:])
	}
	cache.forget(forgotten)
	for i := 2*size - size/2; i < 2*size; i++ {
		id, _ := testEntry(i)
		if cached, forgot := cachedAs(cache, &id, int64(i)), i >= 2*size-64; cached == forgot {
			t.Fatalf("known key %d: cached %v after a forget of the last 64 (flood of unknown keys in between)", i, cached)
		}
	}
}

// cachedAs tells whether the cache serves the verdict of key id as that
// of keyID.
func cachedAs(cache *verifyCache, id *cacheID, keyID int64) bool {
	v, ok := cache.get(id, 0)
	return ok && v.err == nil && v.identity.KeyID == keyID
}
