package keys

import (
	"crypto/aes"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"
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
// A hit takes no lock and writes nothing shared: it reads the current
// verdictTable, whose slots writers change one atomic word at a time.
// Writers (a lookup's put, forget) take mu. See verdictTable for why a
// reader racing with a writer can miss, but never gets a wrong verdict.
type verifyCache struct {
	ttl       int64
	syncedTTL int64
	// limit bounds the verdicts held.
	limit int
	table atomic.Pointer[verdictTable]
	mu    sync.Mutex
	// generation moves on every forget; a lookup that started before a
	// forget does not store its (possibly outdated) verdict.
	generation atomic.Uint64
	// synced is when the last successful sync began, in Unix nanoseconds
	// of the service clock; 0 before the first.
	synced atomic.Int64
}

// cacheID names a key in the cache (keyring.cacheID): three AES blocks,
// equal only for equal keys.
type cacheID [3 * aes.BlockSize]byte

// cachedVerdict is a verdict with the key it is for, by cacheID and
// lookup digest (which key events name); never changed once stored (put
// stores a new one), but for usedAt. A hit reads the first 64 bytes (the
// key, the lookup time, the last use) and the verdict after them; the
// padding makes the entry 192 bytes, a size the allocator places at
// multiples of 64, so that those are two whole cache lines.
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
	_      [40]byte
}

// noteUse records a use of the verdict's key at now (see usedAt).
func (v *cachedVerdict) noteUse(now int64) {
	if v.use == nil || now-v.usedAt.Load() < usePrecision {
		return
	}
	v.usedAt.Store(now)
	v.use.record(now)
}

// indexOf is the table index of a key: 8 bytes of the last block of its
// cacheID, a CBC-MAC of the whole key, so uniformly spread.
func indexOf(id *cacheID) uint64 { return binary.LittleEndian.Uint64(id[2*aes.BlockSize:]) }

func newVerifyCache(size int, ttl, syncedTTL time.Duration) *verifyCache {
	c := &verifyCache{ttl: int64(ttl), syncedTTL: int64(max(ttl, syncedTTL)), limit: max(1, size)}
	c.table.Store(newVerdictTable(0))
	return c
}

// get returns the verdict cached for the key of id, if it is still
// trusted at now.
func (c *verifyCache) get(id *cacheID, now int64) (*cachedVerdict, bool) {
	v := c.table.Load().find(id)
	if v == nil {
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
// happened since the lookup began at generation. A full cache drops
// another verdict first.
func (c *verifyCache) put(id *cacheID, d *digest, v verdict, now int64, generation uint64) {
	entry := &cachedVerdict{id: *id, lookedUp: now, digest: *d, verdict: v}
	entry.usedAt.Store(now)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.generation.Load() != generation {
		return
	}
	t := c.table.Load()
	if t.store(entry, c.limit) {
		return
	}
	t = newVerdictTable(t.live + 1)
	t.copyLive(c.table.Load())
	t.store(entry, c.limit)
	c.table.Store(t)
}

// forget drops the verdicts of the keys of these digests (raw bytes from
// the database). The generation moves first, so a lookup racing with this
// cannot store a verdict read before the change. A digest does not give
// the cacheID back, so the whole table is looked through: key events are
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
	c.mu.Lock()
	defer c.mu.Unlock()
	c.table.Load().dropWhere(func(v *cachedVerdict) bool { return drop[v.digest] })
}

// forgetAll drops every verdict.
func (c *verifyCache) forgetAll() {
	c.generation.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.table.Store(newVerdictTable(0))
}

// len counts cached verdicts, expired ones included.
func (c *verifyCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.table.Load().live
}
