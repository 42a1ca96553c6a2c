package api

import (
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// Rate-limit headers of the contract.
const (
	headerRateLimit           = "x-ratelimit-limit"
	headerRateRemaining       = "x-ratelimit-remaining"
	headerRateRetryAfter      = "x-ratelimit-retry-after"
	headerRateLimitPolicyIETF = "RateLimit-Policy"
	headerRateLimitIETF       = "RateLimit"
)

// rateLimiterShards spreads keys over independent indexes.
const rateLimiterShards = 32

// sweepEvery is how often idle buckets are dropped: a bucket that has
// refilled to its burst is the same as no bucket at all.
const sweepEvery = time.Minute

// rateLimiter is a token bucket per developer key: rate tokens a second, at
// most burst stored. Each bucket is one number, the time at which it is
// full again (the "theoretical arrival time" of GCRA): a request spends a
// token by moving it on by one token's interval, with a compare-and-swap.
// Finding the bucket takes no lock either: each shard's index is an
// immutable map, replaced whole (under the shard's lock) when a key gets
// its first bucket or a sweep drops idle ones. Times are Unix nanoseconds.
type rateLimiter struct {
	// interval is the time one token takes to come back (at least 1 ns).
	interval int64
	// capacity is the time an empty bucket takes to fill: burst intervals.
	capacity int64
	shards   [rateLimiterShards]rateShard
}

type rateShard struct {
	buckets atomic.Pointer[map[int64]*tokenBucket]
	// lastSweep is when the shard was last swept.
	lastSweep atomic.Int64
	// changing serializes replacements of buckets.
	changing sync.Mutex
	// Keeps shards on cache lines of their own: a shard's index is read
	// by every request of its keys, from every core.
	_ [40]byte
}

// tokenBucket is one key's bucket: full holds when it is full again, or
// retired once a sweep has dropped it from its shard's index.
type tokenBucket struct {
	full atomic.Int64
}

// retired marks a bucket a sweep dropped: a request that found it just
// before looks the key up again.
const retired = math.MinInt64

// rateDecision is the outcome of one request against its key's bucket.
type rateDecision struct {
	allowed   bool
	remaining int
	// retryAfter: until the next token, when refused.
	retryAfter time.Duration
	// resetAfter: until the bucket is full again.
	resetAfter time.Duration
}

// newRateLimiter takes rate > 0 and burst > 0; a token's interval is
// rounded to the nanosecond.
func newRateLimiter(rate float64, burst int) *rateLimiter {
	interval := max(1, int64(math.Round(float64(time.Second)/rate)))
	l := &rateLimiter{interval: interval, capacity: interval * int64(burst)}
	for i := range l.shards {
		l.shards[i].buckets.Store(&map[int64]*tokenBucket{})
	}
	return l
}

// take spends one token of keyID's bucket, if it has one at now.
func (l *rateLimiter) take(keyID int64, now time.Time) rateDecision {
	at := now.UnixNano()
	shard := &l.shards[uint64(keyID)%rateLimiterShards]
	if at-shard.lastSweep.Load() >= int64(sweepEvery) {
		l.sweep(shard, at)
	}
	b := (*shard.buckets.Load())[keyID]
	for {
		if b == nil {
			b = l.add(shard, keyID, at)
		}
		full := b.full.Load()
		if full == retired {
			b = nil
			continue
		}
		// debt is how long the bucket takes to be full again: the
		// tokens it lacks, in time.
		debt := max(full, at) - at
		if debt+l.interval > l.capacity {
			return rateDecision{
				remaining:  int(max(0, l.capacity-debt) / l.interval),
				retryAfter: time.Duration(debt + l.interval - l.capacity),
				resetAfter: time.Duration(debt),
			}
		}
		debt += l.interval
		if b.full.CompareAndSwap(full, at+debt) {
			return rateDecision{
				allowed:    true,
				remaining:  int((l.capacity - debt) / l.interval),
				resetAfter: time.Duration(debt),
			}
		}
	}
}

// add returns keyID's bucket, giving the key a full one if it has none.
func (l *rateLimiter) add(shard *rateShard, keyID, at int64) *tokenBucket {
	shard.changing.Lock()
	defer shard.changing.Unlock()
	current := *shard.buckets.Load()
	if b := current[keyID]; b != nil && b.full.Load() != retired {
		return b
	}
	next := make(map[int64]*tokenBucket, len(current)+1)
	for id, b := range current {
		next[id] = b
	}
	b := &tokenBucket{}
	b.full.Store(at)
	next[keyID] = b
	shard.buckets.Store(&next)
	return b
}

// sweep drops the shard's buckets that have been full for sweepEvery at
// at, once per sweepEvery: a request whose time was read a little before
// at finds them full too. A bucket is retired before it leaves the index,
// and only if it is unchanged then, so a token spent meanwhile is never
// lost.
func (l *rateLimiter) sweep(shard *rateShard, at int64) {
	shard.changing.Lock()
	defer shard.changing.Unlock()
	if at-shard.lastSweep.Load() < int64(sweepEvery) {
		return
	}
	shard.lastSweep.Store(at)
	current := *shard.buckets.Load()
	next := make(map[int64]*tokenBucket, len(current))
	idleSince := at - int64(sweepEvery)
	for id, b := range current {
		if full := b.full.Load(); full > idleSince || !b.full.CompareAndSwap(full, retired) {
			next[id] = b
		}
	}
	if len(next) != len(current) {
		shard.buckets.Store(&next)
	}
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

// rateLimit spends a token of the request's key and writes the rate-limit
// headers on every authenticated answer; without a token it answers 429.
func (s *Server) rateLimit(c *fiber.Ctx) error {
	identity, ok := identityOf(c)
	if !ok {
		return models.ErrMissingKey
	}
	d := s.limiter.take(identity.KeyID, s.requestNow(c))
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
