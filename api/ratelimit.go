package api

import (
	"math"
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

// idleBucketLimit is how long a bucket stays full before a sweep may
// drop it: a bucket that has refilled to its burst is the same as no
// bucket at all.
const idleBucketLimit = time.Minute

// rateShards is the number of independently locked parts of the rate
// limiter: concurrent requests of different keys rarely wait on each
// other.
const rateShards = 16

// rateLimiter is a token bucket per developer key: rate tokens a second, at
// most burst stored. Each bucket is one number, the time at which it is
// full again (the "theoretical arrival time" of GCRA): a request spends a
// token by moving it on by one token's interval. The buckets are kept in
// maps by key id, split over a few shards, each behind its own mutex.
// Times are Unix nanoseconds.
type rateLimiter struct {
	// rate and burst are the configured limit of a key across all
	// replicas.
	rate  float64
	burst int
	// size is this process's share of it (see share).
	size   atomic.Pointer[bucketSize]
	shards [rateShards]rateShard
}

// bucketSize is the size of every bucket, in time.
type bucketSize struct {
	// interval is the time one token takes to come back (at least 1 ns).
	interval int64
	// capacity is the time an empty bucket takes to fill: burst intervals.
	capacity int64
}

// rateShard is one part of the rate limiter's buckets.
type rateShard struct {
	mu sync.Mutex
	// full is each bucket's full-again time; a key without one has a full
	// bucket.
	full map[int64]int64
	// sweepAt is the number of buckets at which full buckets are next
	// dropped.
	sweepAt int
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

// minSweep is the number of buckets in a shard below which it is never
// swept.
const minSweep = 1 << 10

// newRateLimiter takes rate > 0 and burst > 0 with burst / rate within
// MaxRateFill (New checks it); a token's interval is rounded to the
// nanosecond.
func newRateLimiter(rate float64, burst int) *rateLimiter {
	l := &rateLimiter{rate: rate, burst: burst}
	l.share(1)
	for i := range l.shards {
		l.shards[i].full = make(map[int64]int64)
		l.shards[i].sweepAt = minSweep
	}
	return l
}

// share sizes the buckets for replicas processes serving the same keys
// (at least one): each allows rate/replicas a second and burst/replicas
// at once (at least one token), so that a key's requests, spread evenly
// over the replicas by a load balancer, get the configured rate in all.
// Buckets keep their state; their new size applies from the next request.
func (l *rateLimiter) share(replicas int) {
	replicas = max(1, replicas)
	interval := max(1, int64(math.Round(float64(time.Second)*float64(replicas)/l.rate)))
	burst := max(1, l.burst/replicas)
	l.size.Store(&bucketSize{interval: interval, capacity: interval * int64(burst)})
}

// take spends one token of keyID's bucket, if it has one at now.
func (l *rateLimiter) take(keyID int64, now time.Time) rateDecision {
	at := now.UnixNano()
	size := l.size.Load()
	sh := &l.shards[uint64(keyID)%rateShards]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	// debt is how long the bucket takes to be full again: the tokens it
	// lacks, in time.
	debt := max(sh.full[keyID], at) - at
	if debt+size.interval > size.capacity {
		return rateDecision{
			remaining:  int(max(0, size.capacity-debt) / size.interval),
			retryAfter: time.Duration(debt + size.interval - size.capacity),
			resetAfter: time.Duration(debt),
		}
	}
	debt += size.interval
	sh.full[keyID] = at + debt
	if len(sh.full) >= sh.sweepAt {
		sh.sweep(at)
	}
	return rateDecision{
		allowed:    true,
		remaining:  int((size.capacity - debt) / size.interval),
		resetAfter: time.Duration(debt),
	}
}

// peek tells what keyID's bucket holds at now, spending nothing.
func (l *rateLimiter) peek(keyID int64, now time.Time) rateDecision {
	at := now.UnixNano()
	sh := &l.shards[uint64(keyID)%rateShards]
	size := l.size.Load()
	sh.mu.Lock()
	debt := max(sh.full[keyID], at) - at
	sh.mu.Unlock()
	return rateDecision{allowed: true, remaining: int(max(0, size.capacity-debt) / size.interval), resetAfter: time.Duration(debt)}
}

// sweep drops the buckets that have been full for idleBucketLimit at at,
// and sets the next sweep at twice the buckets left, so that sweeping
// costs a constant share of the requests.
func (sh *rateShard) sweep(at int64) {
	idleSince := at - int64(idleBucketLimit)
	for keyID, full := range sh.full {
		if full <= idleSince {
			delete(sh.full, keyID)
		}
	}
	sh.sweepAt = max(minSweep, 2*len(sh.full))
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
// token it answers 429 (whose retry headers handleError writes, as for
// every 429). Called by authenticate, which has the identity
// and the time at hand.
func (s *Server) rateLimit(c *fiber.Ctx, identity keys.Identity, now time.Time) error {
	d := s.limiter.take(identity.KeyID, now)
	s.setRateHeaders(c, d)
	if !d.allowed {
		s.metrics.refusedBy(limitKey)
		return &rateLimitedError{retryAfter: d.retryAfter}
	}
	return c.Next()
}

// setRateHeaders writes the rate-limit headers of a decision.
func (s *Server) setRateHeaders(c *fiber.Ctx, d rateDecision) {
	header := &c.Response().Header
	var buf [48]byte
	header.SetCanonical(s.headers.rateLimit, s.rateHeaders.limit)
	header.SetCanonical(s.headers.rateRemaining, strconv.AppendInt(buf[:0], int64(d.remaining), 10))
	header.SetCanonical(s.headers.ratePolicy, s.rateHeaders.policy)
	value := append(buf[:0], `"default";r=`...)
	value = strconv.AppendInt(value, int64(d.remaining), 10)
	value = append(value, ";t="...)
	header.SetCanonical(s.headers.rate, strconv.AppendInt(value, int64(wholeSeconds(d.resetAfter)), 10))
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
