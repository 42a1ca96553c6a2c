package keys

import (
	"errors"
	"testing"
	"time"
)

// testEntry is a cacheID and a digest of the cache tests, told apart by n.
func testEntry(n int) (cacheID, digest) {
	var id cacheID
	var d digest
	id[0], id[1] = byte(n), byte(n>>8)
	id[32], id[33] = byte(n), byte(n>>8)
	d[0], d[1] = byte(n), byte(n>>8)
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

// TestVerifyCacheTellsKeysOfOneIndexApart: two keys whose cacheIDs share
// the table index never get each other's verdict, forgetting one leaves
// the other, and both can be cached at once.
func TestVerifyCacheTellsKeysOfOneIndexApart(t *testing.T) {
	cache := newVerifyCache(16, time.Second, time.Second)
	first, firstDigest := testEntry(1)
	second, secondDigest := testEntry(2)
	second[32], second[33], second[40] = first[32], first[33], first[40]
	if indexOf(&first) != indexOf(&second) {
		t.Fatal("the keys do not share an index")
	}
	cache.put(&first, &firstDigest, verdict{identity: Identity{KeyID: 1}}, 0, cache.startLookup())
	if _, ok := cache.get(&second, 0); ok {
		t.Fatal("a key got the verdict of another with the same index")
	}
	cache.forget([][]byte{secondDigest[:]})
	if v, ok := cache.get(&first, 0); !ok || v.identity.KeyID != 1 {
		t.Fatal("forgetting a key dropped another with the same index")
	}
	cache.put(&second, &secondDigest, verdict{identity: Identity{KeyID: 2}}, 0, cache.startLookup())
	if v, ok := cache.get(&second, 0); !ok || v.identity.KeyID != 2 {
		t.Fatal("the later of two keys with one index is not served")
	}
	if v, ok := cache.get(&first, 0); !ok || v.identity.KeyID != 1 {
		t.Fatal("the earlier of two keys with one index is not served beside the later")
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
