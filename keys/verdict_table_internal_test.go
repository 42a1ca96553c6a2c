package keys

import (
	"encoding/binary"
	"sync"
	"testing"
	"time"
)

// entryAtIndex is a test key whose index is index, told apart by n.
func entryAtIndex(n int, index uint64) (cacheID, digest) {
	id, d := testEntry(n)
	binary.LittleEndian.PutUint64(id[32:], index)
	return id, d
}

func TestVerdictTableGrowsAndKeepsEveryVerdict(t *testing.T) {
	const keys = 5000
	cache := newVerifyCache(keys, time.Minute, time.Minute)
	for i := range keys {
		id, d := testEntry(i)
		cache.put(&id, &d, verdict{identity: Identity{KeyID: int64(i)}}, 0, cache.startLookup())
	}
	for i := range keys {
		id, _ := testEntry(i)
		if v, ok := cache.get(&id, 0); !ok || v.identity.KeyID != int64(i) {
			t.Fatalf("key %d: not served after the table grew (ok %v)", i, ok)
		}
	}
	table := cache.table.Load()
	if table.live != keys || 2*table.used > len(table.slots) {
		t.Fatalf("table of %d slots holds %d verdicts in %d used slots; want %d in at most half", len(table.slots), table.live, table.used, keys)
	}
}

// TestVerdictTableProbesPastDroppedSlots: keys that start their probe at
// one slot are found past the dropped verdict of another, and a new key
// takes the dropped slot over instead of a free one.
func TestVerdictTableProbesPastDroppedSlots(t *testing.T) {
	cache := newVerifyCache(16, time.Minute, time.Minute)
	var ids [4]cacheID
	var digests [4]digest
	for i := range ids {
		// Indexes a multiple of the table size apart: one first slot.
		ids[i], digests[i] = entryAtIndex(i, 5+uint64(i)*minVerdictSlots)
	}
	for i := range 3 {
		cache.put(&ids[i], &digests[i], verdict{identity: Identity{KeyID: int64(i)}}, 0, cache.startLookup())
	}
	cache.forget([][]byte{digests[1][:]})
	used := cache.table.Load().used
	cache.put(&ids[3], &digests[3], verdict{identity: Identity{KeyID: 3}}, 0, cache.startLookup())
	for i, want := range []bool{true, false, true, true} {
		v, ok := cache.get(&ids[i], 0)
		if ok != want || (ok && v.identity.KeyID != int64(i)) {
			t.Fatalf("key %d: served %v, want %v", i, ok, want)
		}
	}
	if table := cache.table.Load(); table.used != used || table.live != 3 {
		t.Fatalf("the new key took a free slot (%d used, was %d) or the count is off (%d live)", table.used, used, table.live)
	}
}

func TestVerdictTableEvictsOnlyWhenFull(t *testing.T) {
	const size = 50
	cache := newVerifyCache(size, time.Minute, time.Minute)
	for i := range size {
		id, d := testEntry(i)
		cache.put(&id, &d, verdict{}, 0, cache.startLookup())
	}
	// Storing a held key again replaces its verdict and evicts nothing.
	id, d := testEntry(7)
	cache.put(&id, &d, verdict{identity: Identity{KeyID: 7}}, 0, cache.startLookup())
	for i := range size {
		id, _ := testEntry(i)
		if _, ok := cache.get(&id, 0); !ok {
			t.Fatalf("key %d evicted from a cache of %d holding %d", i, size, size)
		}
	}
	id, d = testEntry(size)
	cache.put(&id, &d, verdict{}, 0, cache.startLookup())
	if n := cache.len(); n != size {
		t.Fatalf("a full cache holds %d verdicts after one more put, want %d", n, size)
	}
	if _, ok := cache.get(&id, 0); !ok {
		t.Fatal("the newest verdict was not kept")
	}
}

// TestVerifyCacheReadersRaceWritersSafely: readers that race with puts,
// evictions, rebuilds and forgets (run it with -race) miss at worst,
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
