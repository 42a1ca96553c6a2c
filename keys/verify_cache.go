package keys

import (
	"crypto/aes"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"
)

// cacheShards splits the verification cache so concurrent requests rarely
// share a lock; a power of two, picked by a byte of the cacheID.
const cacheShards = 16

// verdict is the cached outcome of verifying one key: an identity, or
// one of the sentinel errors (including unknown, so guessing does not
// reach the database twice within the TTL).
type verdict struct {
	identity Identity
	err      error
	// use records last use; nil unless the key authenticates.
	use *keyUse
	// lookedUp is when the database was asked, in Unix nanoseconds of the
	// service clock.
	lookedUp int64
}

// verifyCache maps keys (by cacheID) to verdicts, bounded in size. A verdict is
// trusted for ttl after its lookup; longer, up to syncedTTL, while the
// key-event feed is read (see Service.Sync): then every change committed
// since the last successful sync began is at most ttl old, and each one
// read drops the verdicts it concerns.
type verifyCache struct {
	ttl       int64
	syncedTTL int64
	shards    [cacheShards]cacheShard
	// generation moves on every forget; a lookup that started before a
	// forget does not store its (possibly outdated) verdict.
	generation atomic.Uint64
	// synced is when the last successful sync began, in Unix nanoseconds
	// of the service clock; 0 before the first.
	synced atomic.Int64
}

type cacheShard struct {
	mu    sync.RWMutex
	limit int
	// verdicts are indexed by a 64-bit piece of the cacheID (indexOf): a
	// map of small keys and pointer values, whose probe touches less
	// memory than one keyed by whole cacheIDs. The entry holds the whole
	// cacheID, and a verdict counts only when it matches.
	verdicts map[uint64]*cachedVerdict
	// Keeps shards on cache lines of their own: every verification
	// takes its shard's read lock, from whichever core it runs on.
	_ [24]byte
}

// cacheID names a key in the cache (keyring.cacheID): three AES blocks,
// equal only for equal keys.
type cacheID [3 * aes.BlockSize]byte

// cachedVerdict is a verdict with the key it is for, by cacheID and
// lookup digest (which key events name); never changed once stored (put
// stores a new one), but for usedAt. What a hit reads comes first, so that
// it spans as few cache lines as it can.
type cachedVerdict struct {
	id cacheID
	verdict
	// usedAt is the last use recorded through this verdict: a use within
	// usePrecision of it is not recorded again, so that a hit touches
	// nothing but the verdict.
	usedAt atomic.Int64
	digest digest
}

// noteUse records a use of the verdict's key at now (see usedAt).
func (v *cachedVerdict) noteUse(now int64) {
	if v.use == nil || now-v.usedAt.Load() < usePrecision {
		return
	}
	v.usedAt.Store(now)
	v.use.record(now)
}

// indexOf is the map index of a key: 8 bytes of the last block of its
// cacheID, a CBC-MAC of the whole key, so uniformly spread.
func indexOf(id *cacheID) uint64 { return binary.LittleEndian.Uint64(id[2*aes.BlockSize:]) }

func newVerifyCache(size int, ttl, syncedTTL time.Duration) *verifyCache {
	c := &verifyCache{ttl: int64(ttl), syncedTTL: int64(max(ttl, syncedTTL))}
	perShard := max(1, (size+cacheShards-1)/cacheShards)
	for i := range c.shards {
		c.shards[i].limit = perShard
		c.shards[i].verdicts = make(map[uint64]*cachedVerdict)
	}
	return c
}

// shard is the shard of a key: picked by a byte of its cacheID that the
// map index does not use.
func (c *verifyCache) shard(id *cacheID) *cacheShard {
	return &c.shards[id[2*aes.BlockSize+8]%cacheShards]
}

// get returns the verdict cached for the key of id, if it is still
// trusted at now.
func (c *verifyCache) get(id *cacheID, now int64) (*cachedVerdict, bool) {
	sh := c.shard(id)
	sh.mu.RLock()
	v := sh.verdicts[indexOf(id)]
	sh.mu.RUnlock()
	if v == nil || v.id != *id {
		return nil, false
	}
	age := now - v.lookedUp
	if age < c.ttl || (age < c.syncedTTL && now-c.synced.Load() < c.ttl) {
		return v, true
	}
	return nil, false
}

// startLookup returns the generation to hand to put after the database
// has answered.
func (c *verifyCache) startLookup() uint64 { return c.generation.Load() }

// put caches v for the key of id and d from now, unless a forget
// happened since the lookup began at generation. A full shard evicts an
// arbitrary entry (Go's map iteration starts at a random place). Of two
// keys with one index, the later stored stays.
func (c *verifyCache) put(id *cacheID, d *digest, v verdict, now int64, generation uint64) {
	v.lookedUp = now
	entry := &cachedVerdict{id: *id, digest: *d, verdict: v}
	entry.usedAt.Store(now)
	index := indexOf(id)
	sh := c.shard(id)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if c.generation.Load() != generation {
		return
	}
	if _, present := sh.verdicts[index]; !present && len(sh.verdicts) >= sh.limit {
		for victim := range sh.verdicts {
			delete(sh.verdicts, victim)
			break
		}
	}
	sh.verdicts[index] = entry
}

// forget drops the verdicts of the keys of these digests (raw bytes from
// the database). The generation moves first, so a lookup racing with this
// cannot store a verdict read before the change. A digest does not give
// the cacheID back, so every shard is looked through: key events are rare
// next to verifications.
func (c *verifyCache) forget(digests [][]byte) {
	c.generation.Add(1)
	drop := make(map[digest]bool, len(digests))
	for _, raw := range digests {
		var d digest
		if copy(d[:], raw) == len(d) {
			drop[d] = true
		}
	}
	if len(drop) == 0 {
		return
	}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		for index, v := range sh.verdicts {
			if drop[v.digest] {
				delete(sh.verdicts, index)
			}
		}
		sh.mu.Unlock()
	}
}

// forgetAll drops every verdict.
func (c *verifyCache) forgetAll() {
	c.generation.Add(1)
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		clear(sh.verdicts)
		sh.mu.Unlock()
	}
}

// len counts cached verdicts, expired ones included.
func (c *verifyCache) len() int {
	n := 0
	for i := range c.shards {
		c.shards[i].mu.RLock()
		n += len(c.shards[i].verdicts)
		c.shards[i].mu.RUnlock()
	}
	return n
}
