package keys

import (
	"crypto/aes"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/crownsdev/crowns/models"
)

// verdict is the cached outcome of verifying one key: an identity, or
// one of the sentinel errors (including unknown, so guessing does not
// reach the database twice within the TTL).
type verdict struct {
	identity Identity
	err      error
	// use records last use; nil unless the key authenticates.
	use *keyUse
}

// verifyCache maps keys (by cacheID) to verdicts, bounded in size. A
// verdict is trusted for ttl after its lookup; longer, up to syncedTTL,
// while the key-event feed is read (see Service.Sync): then every change
// committed since the last successful sync began is at most ttl old, and
// each one read drops the verdicts it concerns.
//
// Verdicts of keys that authenticate and those of unknown keys are kept
// apart, each in a least-recently-used list within its own bound, so that
// a flood of made-up keys can never push a real key's verdict out.
//
// A large cache is split into shards by the key's cacheID, each with its
// lists behind a lock of its own: every request reads the cache, and one
// lock for all would have the cores take turns at it (and pass its cache
// line between them) on every request. Each shard holds its share of the
// bound, so the least recently used verdict of a shard goes, not always
// the least recently used of all. A cache too small to split well keeps
// one shard: exact least-recently-used order.
type verifyCache struct {
	ttl       int64
	syncedTTL int64

	shards []verdictShard
	// generation moves on every forget; a lookup that started before a
	// forget does not store its (possibly outdated) verdict.
	generation atomic.Uint64
	// synced is when the last successful sync began, in Unix nanoseconds
	// of the service clock; 0 before the first.
	synced atomic.Int64
}

// verdictShard is a part of the cache: its lists of known and unknown
// keys' verdicts, behind one lock.
type verdictShard struct {
	mu      sync.Mutex
	known   *simplelru.LRU[cacheID, *cachedVerdict]
	unknown *simplelru.LRU[cacheID, *cachedVerdict]
	// The padding keeps each shard's lock on a cache line of its own.
	_ [40]byte
}

// Shards of the cache: at most maxVerdictShards (a power of two), each
// holding at least minVerdictsPerShard verdicts of known keys.
const (
	maxVerdictShards    = 32
	minVerdictsPerShard = 1024
)

// cacheID names a key in the cache (keyring.cacheID): three AES blocks,
// equal only for equal keys.
type cacheID [3 * aes.BlockSize]byte

// cachedVerdict is a verdict with the key it is for, by cacheID and
// lookup digest (which key events name); never changed once stored (put
// stores a new one), but for usedAt.
type cachedVerdict struct {
	id cacheID
	// lookedUp is when the database was asked, in Unix nanoseconds of the
	// service clock.
	lookedUp int64
	// usedAt is the last use recorded through this verdict: a use within
	// usePrecision of it is not recorded again, so that a hit touches
	// nothing but the verdict.
	usedAt atomic.Int64
	verdict
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

// unknownShare is the part of the cache's size given to verdicts of
// unknown keys, on top of the size for known ones.
const unknownShare = 4

func newVerifyCache(size int, ttl, syncedTTL time.Duration) *verifyCache {
	limit := max(1, size)
	shards := 1
	for shards < maxVerdictShards && limit/(2*shards) >= minVerdictsPerShard {
		shards *= 2
	}
	c := &verifyCache{ttl: int64(ttl), syncedTTL: int64(max(ttl, syncedTTL)), shards: make([]verdictShard, shards)}
	for i := range c.shards {
		c.shards[i].known = newVerdictList(max(1, limit/shards))
		c.shards[i].unknown = newVerdictList(max(1, limit/unknownShare/shards))
	}
	return c
}

// shardOf is the shard of the key of id: its first byte picks it (a
// cacheID is AES output, evenly spread).
func (c *verifyCache) shardOf(id *cacheID) *verdictShard {
	return &c.shards[int(id[0])&(len(c.shards)-1)]
}

// newVerdictList is a least-recently-used list of at most limit verdicts
// (limit ≥ 1, which is all NewLRU checks).
func newVerdictList(limit int) *simplelru.LRU[cacheID, *cachedVerdict] {
	verdicts, _ := simplelru.NewLRU[cacheID, *cachedVerdict](limit, nil)
	return verdicts
}

// get returns the verdict cached for the key of id, if there is one, and
// whether it is still trusted at now.
func (c *verifyCache) get(id *cacheID, now int64) (v *cachedVerdict, trusted bool) {
	shard := c.shardOf(id)
	shard.mu.Lock()
	v, ok := shard.known.Get(*id)
	if !ok {
		v, ok = shard.unknown.Get(*id)
	}
	shard.mu.Unlock()
	if !ok {
		return nil, false
	}
	age := now - v.lookedUp
	return v, age < c.ttl || (age < c.syncedTTL && now-c.synced.Load() < c.ttl)
}

// startLookup returns the generation to hand to put after the database
// has answered.
func (c *verifyCache) startLookup() uint64 { return c.generation.Load() }

// put caches v for the key of id and d from now, unless a forget
// happened since the lookup began at generation. When the verdicts of its
// kind (known or unknown key) are at their bound, the least recently used
// of that kind goes.
func (c *verifyCache) put(id *cacheID, d *digest, v verdict, now int64, generation uint64) {
	entry := &cachedVerdict{id: *id, lookedUp: now, digest: *d, verdict: v}
	entry.usedAt.Store(now)
	shard := c.shardOf(id)
	shard.mu.Lock()
	defer shard.mu.Unlock()
	if c.generation.Load() != generation {
		return
	}
	shard.known.Remove(*id)
	shard.unknown.Remove(*id)
	if errors.Is(v.err, models.ErrUnknownKey) {
		shard.unknown.Add(*id, entry)
	} else {
		shard.known.Add(*id, entry)
	}
}

// forget drops the verdicts of the keys of these digests (raw bytes from
// the database). The generation moves first, so a lookup racing with this
// cannot store a verdict read before the change. A digest does not give
// the cacheID back, so every verdict is looked through: key events are
// rare next to verifications.
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
		c.shards[i].forget(drop)
	}
}

// forgetAll drops every verdict.
func (c *verifyCache) forgetAll() {
	c.generation.Add(1)
	for i := range c.shards {
		shard := &c.shards[i]
		shard.mu.Lock()
		shard.known.Purge()
		shard.unknown.Purge()
		shard.mu.Unlock()
	}
}

// len counts cached verdicts, expired ones included.
func (c *verifyCache) len() int {
	n := 0
	for i := range c.shards {
		shard := &c.shards[i]
		shard.mu.Lock()
		n += shard.known.Len() + shard.unknown.Len()
		shard.mu.Unlock()
	}
	return n
}

// forget drops the shard's verdicts of the keys of these digests.
func (s *verdictShard) forget(drop map[digest]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, verdicts := range []*simplelru.LRU[cacheID, *cachedVerdict]{s.known, s.unknown} {
		for _, id := range verdicts.Keys() {
			if v, ok := verdicts.Peek(id); ok && drop[v.digest] {
				verdicts.Remove(id)
			}
		}
	}
}
