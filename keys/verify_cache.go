package keys

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"
)

// cacheShards splits the verification cache so concurrent requests rarely
// share a lock; a power of two, picked by the first digest byte.
const cacheShards = 16

// verdict is the cached outcome of verifying one digest: an identity, or
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

// verifyCache maps digests to verdicts, bounded in size. A verdict is
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
	// verdicts are indexed by a 64-bit piece of the digest: a map of
	// small keys and pointer values, whose probe touches less memory than
	// one keyed by whole digests. The entry holds the whole digest, and
	// a verdict counts only when it matches.
	verdicts map[uint64]*cachedVerdict
}

// cachedVerdict is a verdict with the digest it is for; never changed
// once stored (put stores a new one).
type cachedVerdict struct {
	digest digest
	verdict
}

// indexOf is the map index of a digest: its first 8 bytes, uniformly
// spread as the digest is an HMAC.
func indexOf(d *digest) uint64 { return binary.LittleEndian.Uint64(d[:8]) }

func newVerifyCache(size int, ttl, syncedTTL time.Duration) *verifyCache {
	c := &verifyCache{ttl: int64(ttl), syncedTTL: int64(max(ttl, syncedTTL))}
	perShard := max(1, (size+cacheShards-1)/cacheShards)
	for i := range c.shards {
		c.shards[i].limit = perShard
		c.shards[i].verdicts = make(map[uint64]*cachedVerdict)
	}
	return c
}

func (c *verifyCache) shard(d *digest) *cacheShard { return &c.shards[d[0]%cacheShards] }

// get returns the verdict cached for d, if it is still trusted at now.
func (c *verifyCache) get(d *digest, now int64) (verdict, bool) {
	sh := c.shard(d)
	sh.mu.RLock()
	v := sh.verdicts[indexOf(d)]
	sh.mu.RUnlock()
	if v == nil || v.digest != *d {
		return verdict{}, false
	}
	age := now - v.lookedUp
	if age < c.ttl || (age < c.syncedTTL && now-c.synced.Load() < c.ttl) {
		return v.verdict, true
	}
	return verdict{}, false
}

// startLookup returns the generation to hand to put after the database
// has answered.
func (c *verifyCache) startLookup() uint64 { return c.generation.Load() }

// put caches v for d from now, unless a forget happened since the lookup
// began at generation. A full shard evicts an arbitrary entry (Go's map
// iteration starts at a random place). Of two digests with one index, the
// later stored stays.
func (c *verifyCache) put(d *digest, v verdict, now int64, generation uint64) {
	v.lookedUp = now
	entry := &cachedVerdict{digest: *d, verdict: v}
	index := indexOf(d)
	sh := c.shard(d)
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

// forget drops the verdicts of these digests (raw bytes from the
// database). The generation moves first, so a lookup racing with this
// cannot store a verdict read before the change.
func (c *verifyCache) forget(digests [][]byte) {
	c.generation.Add(1)
	for _, raw := range digests {
		var d digest
		if copy(d[:], raw) != len(d) {
			continue
		}
		index := indexOf(&d)
		sh := c.shard(&d)
		sh.mu.Lock()
		if v := sh.verdicts[index]; v != nil && v.digest == d {
			delete(sh.verdicts, index)
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
