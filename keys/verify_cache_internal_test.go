package keys

import (
	"errors"
	"testing"
	"time"
)

func TestVerifyCacheStaysWithinItsSize(t *testing.T) {
	const size = 64
	cache := newVerifyCache(size, time.Second, time.Second)
	unknown := errors.New("unknown")
	for i := range 10 * size {
		var d digest
		d[0], d[1] = byte(i), byte(i>>8)
		cache.put(&d, verdict{err: unknown}, 0, cache.startLookup())
	}
	if n := cache.len(); n > size || n < size/2 {
		t.Fatalf("cache holds %d verdicts after %d puts, want at most %d (and not emptied)", n, 10*size, size)
	}
}

func TestVerifyCacheDropsALookupThatRacedWithAForget(t *testing.T) {
	cache := newVerifyCache(16, time.Second, time.Second)
	var d digest
	generation := cache.startLookup()
	cache.forget([][]byte{d[:]})
	cache.put(&d, verdict{}, 0, generation)
	if _, ok := cache.get(&d, 0); ok {
		t.Fatal("a verdict read before a forget was cached after it")
	}
	cache.put(&d, verdict{}, 0, cache.startLookup())
	if _, ok := cache.get(&d, int64(time.Second)-1); !ok {
		t.Fatal("a verdict read after the forget was not cached")
	}
	if _, ok := cache.get(&d, int64(time.Second)); ok {
		t.Fatal("a verdict was served at its expiry")
	}
}

// TestVerifyCacheTellsDigestsOfOneIndexApart: two digests that share the
// map index never get each other's verdict, and forgetting one leaves
// the other.
func TestVerifyCacheTellsDigestsOfOneIndexApart(t *testing.T) {
	cache := newVerifyCache(16, time.Second, time.Second)
	var first, second digest
	first[31], second[31] = 1, 2
	if indexOf(&first) != indexOf(&second) {
		t.Fatal("the digests do not share an index")
	}
	cache.put(&first, verdict{identity: Identity{KeyID: 1}}, 0, cache.startLookup())
	if _, ok := cache.get(&second, 0); ok {
		t.Fatal("a digest got the verdict of another with the same index")
	}
	cache.forget([][]byte{second[:]})
	if v, ok := cache.get(&first, 0); !ok || v.identity.KeyID != 1 {
		t.Fatal("forgetting a digest dropped another with the same index")
	}
	cache.put(&second, verdict{identity: Identity{KeyID: 2}}, 0, cache.startLookup())
	if v, ok := cache.get(&second, 0); !ok || v.identity.KeyID != 2 {
		t.Fatal("the later of two digests with one index is not served")
	}
	if _, ok := cache.get(&first, 0); ok {
		t.Fatal("the earlier of two digests with one index is still served")
	}
}
