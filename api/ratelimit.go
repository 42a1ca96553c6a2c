package api

import (
	"math"
	"math/bits"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/keys"
)

// Rate-limit headers of the contract.
const (
	headerRateLimit           = "x-ratelimit-limit"
	headerRateRemaining       = "x-ratelimit-remaining"
	headerRateRetryAfter      = "x-ratelimit-retry-after"
	headerRateLimitPolicyIETF = "RateLimit-Policy"
	headerRateLimitIETF       = "RateLimit"
)

// idleBucketLimit is how long a bucket stays full before a rebuild may
// drop it: a bucket that has refilled to its burst is the same as no
// bucket at all.
const idleBucketLimit = time.Minute

// rateLimiter is a token bucket per developer key: rate tokens a second, at
// most burst stored. Each bucket is one number, the time at which it is
// full again (the "theoretical arrival time" of GCRA): a request spends a
// token by moving it on by one token's interval, with a compare-and-swap.
// The buckets live in an open-addressing table (rateTable), each slot the
// key id and its bucket side by side, so a request finds its bucket with
// no lock and, mostly, in one cache line. Times are Unix nanoseconds.
type rateLimiter struct {
	// interval is the time one token takes to come back (at least 1 ns).
	interval int64
	// capacity is the time an empty bucket takes to fill: burst intervals.
	capacity int64
	table    atomic.Pointer[rateTable]
	// rebuilding is held while the table is moved to a new one.
	rebuilding sync.Mutex
}

// rateDecision is the outcome of one request against its key's bucket.
type rateDecision struct {
	allowed   bool
	remaining int
	// retryAfter: until the next token, when refused.
	retryAfter time.Duration
	// resetAfter: until the bucket is full again.
	resetAfter time.Duration
}

// MaxRateFill bounds the time an empty rate-limit bucket takes to fill
// (burst / rate), about a century, so that bucket times stay far from
// overflowing; New refuses more.
const MaxRateFill = 100 * 365 * 24 * time.Hour

// RateFillsInTime reports whether an empty bucket of burst tokens, rate
// (> 0) coming back a second, fills within MaxRateFill.
func RateFillsInTime(rate float64, burst int) bool {
	return float64(burst)/rate <= MaxRateFill.Seconds()
}

// newRateLimiter takes rate > 0 and burst > 0 with burst / rate within
// MaxRateFill (New checks it); a token's interval is rounded to the
// nanosecond.
func newRateLimiter(rate float64, burst int) *rateLimiter {
	interval := max(1, int64(math.Round(float64(time.Second)/rate)))
	l := &rateLimiter{interval: interval, capacity: interval * int64(burst)}
	l.table.Store(newRateTable(minRateSlots))
	return l
}

// take spends one token of keyID's bucket, if it has one at now.
func (l *rateLimiter) take(keyID int64, now time.Time) rateDecision {
	at := now.UnixNano()
	for {
		t := l.table.Load()
		slot := t.find(keyID)
		if slot == nil {
			l.rebuild(t, at)
			continue
		}
		if d, ok := l.spend(slot, at); ok {
			return d
		}
		l.awaitRebuild()
	}
}

// awaitRebuild returns once the table being moved, if any, has been
// replaced: rebuild holds the lock until it publishes the new table.
func (l *rateLimiter) awaitRebuild() {
	l.rebuilding.Lock()
	defer l.rebuilding.Unlock()
}

// spend takes a token from slot's bucket; false when the slot has been
// moved to a new table.
func (l *rateLimiter) spend(slot *rateSlot, at int64) (rateDecision, bool) {
	for {
		full := slot.full.Load()
		if full == movedSlot {
			return rateDecision{}, false
		}
		// debt is how long the bucket takes to be full again: the
		// tokens it lacks, in time.
		debt := max(full, at) - at
		if debt+l.interval > l.capacity {
			return rateDecision{
				remaining:  int(max(0, l.capacity-debt) / l.interval),
				retryAfter: time.Duration(debt + l.interval - l.capacity),
				resetAfter: time.Duration(debt),
			}, true
		}
		debt += l.interval
		if slot.full.CompareAndSwap(full, at+debt) {
			return rateDecision{
				allowed:    true,
				remaining:  int((l.capacity - debt) / l.interval),
				resetAfter: time.Duration(debt),
			}, true
		}
	}
}

// rebuild moves the buckets of full table t to a new table, a third full
// at most, dropping the buckets that have been full for idleBucketLimit
// at at. Each slot of t is marked moved as it is read, so a
// token spent meanwhile is never lost: a request that finds a moved slot
// waits and looks again in the new table.
func (l *rateLimiter) rebuild(t *rateTable, at int64) {
	l.rebuilding.Lock()
	defer l.rebuilding.Unlock()
	if l.table.Load() != t {
		return // moved already
	}
	type kept struct{ keyID, full int64 }
	var keep []kept
	idleSince := at - int64(idleBucketLimit)
	for i := range t.slots {
		slot := &t.slots[i]
		keyID := slot.keyID.Load()
		for keyID == freeSlot && !slot.keyID.CompareAndSwap(freeSlot, movedSlot) {
			keyID = slot.keyID.Load()
		}
		if keyID == freeSlot {
			continue
		}
		full := slot.full.Swap(movedSlot)
		if full > idleSince {
			keep = append(keep, kept{keyID, full})
		}
	}
	next := newRateTable(max(minRateSlots, ceilPowerOfTwo(3*len(keep))))
	for _, k := range keep {
		slot := next.find(k.keyID)
		slot.full.Store(k.full)
	}
	l.table.Store(next)
}

// Marks of rateSlot: a slot no key has, and a slot (or bucket) moved to a
// new table.
const (
	freeSlot  = math.MinInt64
	movedSlot = math.MinInt64 + 1
)

// minRateSlots is the size of the first table.
const minRateSlots = 1 << 10

// rateTable is an open-addressing hash table (linear probing) of token
// buckets by key id. Slots are claimed with a compare-and-swap and never
// given back: a table that would be more than half full is replaced by
// rateLimiter.rebuild.
type rateTable struct {
	slots []rateSlot
	// shift turns a key id's 64-bit hash into a slot number.
	shift uint
	used  atomic.Int64
}

// rateSlot is a key id (freeSlot before a key claims it, movedSlot when
// a free slot was closed by a rebuild) and its bucket's full-again time
// (zero for a new, full bucket; movedSlot once rebuilt).
type rateSlot struct {
	keyID atomic.Int64
	full  atomic.Int64
}

func newRateTable(slots int) *rateTable {
	t := &rateTable{slots: make([]rateSlot, slots), shift: uint(64 - bits.TrailingZeros(uint(slots)))}
	for i := range t.slots {
		t.slots[i].keyID.Store(freeSlot)
	}
	return t
}

// find returns keyID's slot, claiming a free one for a new key; nil when
// the key is not in the table and the table is half full or being moved.
func (t *rateTable) find(keyID int64) *rateSlot {
	mask := len(t.slots) - 1
	// Fibonacci hashing spreads consecutive key ids over the table.
	i := int((uint64(keyID) * 0x9E3779B97F4A7C15) >> t.shift)
	for range t.slots {
		slot := &t.slots[i]
		switch id := slot.keyID.Load(); id {
		case keyID:
			return slot
		case movedSlot:
			return nil
		case freeSlot:
			if 2*t.used.Load() >= int64(len(t.slots)) {
				return nil
			}
			if slot.keyID.CompareAndSwap(freeSlot, keyID) {
				t.used.Add(1)
				return slot
			}
			if slot.keyID.Load() == keyID {
				return slot
			}
			continue // claimed by another key or closed: look at it again
		}
		i = (i + 1) & mask
	}
	return nil
}

// ceilPowerOfTwo is the least power of two at least n (n > 0).
func ceilPowerOfTwo(n int) int {
	return 1 << bits.Len(uint(n-1))
}

// rateHeaders are the values of the rate-limit headers that depend on
// the configuration alone, rendered once.
type rateHeaders struct {
	limit  []byte // x-ratelimit-limit
	policy []byte // RateLimit-Policy
}

func newRateHeaders(rate float64) rateHeaders {
	limit := strconv.FormatFloat(rate, 'f', -1, 64)
	return rateHeaders{limit: []byte(limit), policy: []byte(`"default";q=` + limit + `;w=1`)}
}

// rateLimit spends a token of the request's key, verified at now, and
// writes the rate-limit headers on every authenticated answer; without a
// token it answers 429. Called by authenticate, which has the identity
// and the time at hand.
func (s *Server) rateLimit(c *fiber.Ctx, identity keys.Identity, now time.Time) error {
	d := s.limiter.take(identity.KeyID, now)
	header := &c.Response().Header
	var buf [48]byte
	header.SetCanonical(s.headers.rateLimit, s.rateHeaders.limit)
	header.SetCanonical(s.headers.rateRemaining, strconv.AppendInt(buf[:0], int64(d.remaining), 10))
	header.SetCanonical(s.headers.ratePolicy, s.rateHeaders.policy)
	value := append(buf[:0], `"default";r=`...)
	value = strconv.AppendInt(value, int64(d.remaining), 10)
	value = append(value, ";t="...)
	header.SetCanonical(s.headers.rate, strconv.AppendInt(value, int64(wholeSeconds(d.resetAfter)), 10))
	if !d.allowed {
		c.Set(headerRateRetryAfter, strconv.FormatInt(d.retryAfter.Milliseconds()+boolToInt(d.retryAfter%time.Millisecond != 0), 10))
		return &rateLimitedError{retryAfter: d.retryAfter}
	}
	return c.Next()
}

// wholeSeconds rounds up to whole seconds; zero stays zero.
func wholeSeconds(d time.Duration) int {
	return int(math.Ceil(d.Seconds()))
}

func boolToInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
