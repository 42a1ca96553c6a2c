package api

import (
	"math"
	"strconv"
	"sync"
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

// rateLimiterShards spreads keys over independent locks.
const rateLimiterShards = 32

// sweepEvery is how often idle buckets are dropped: a bucket that has
// refilled to its burst is the same as no bucket at all.
const sweepEvery = time.Minute

// rateLimiter is a token bucket per developer key: rate tokens a second, at
// most burst stored.
type rateLimiter struct {
	rate   float64
	burst  float64
	shards [rateLimiterShards]rateShard
}

type rateShard struct {
	mu        sync.Mutex
	buckets   map[int64]*tokenBucket
	lastSweep time.Time
}

type tokenBucket struct {
	tokens  float64
	updated time.Time
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

func newRateLimiter(rate float64, burst int) *rateLimiter {
	l := &rateLimiter{rate: rate, burst: float64(burst)}
	for i := range l.shards {
		l.shards[i].buckets = make(map[int64]*tokenBucket)
	}
	return l
}

// take spends one token of keyID's bucket, if it has one at now.
func (l *rateLimiter) take(keyID int64, now time.Time) rateDecision {
	shard := &l.shards[uint64(keyID)%rateLimiterShards]
	shard.mu.Lock()
	defer shard.mu.Unlock()
	l.sweep(shard, now)
	b, ok := shard.buckets[keyID]
	if !ok {
		b = &tokenBucket{tokens: l.burst, updated: now}
		shard.buckets[keyID] = b
	}
	if elapsed := now.Sub(b.updated); elapsed > 0 {
		b.tokens = math.Min(l.burst, b.tokens+elapsed.Seconds()*l.rate)
		b.updated = now
	}
	decision := rateDecision{allowed: b.tokens >= 1}
	if decision.allowed {
		b.tokens--
	} else {
		decision.retryAfter = l.duration(1 - b.tokens)
	}
	decision.remaining = int(math.Floor(b.tokens))
	decision.resetAfter = l.duration(l.burst - b.tokens)
	return decision
}

// duration is how long the bucket takes to gain tokens.
func (l *rateLimiter) duration(tokens float64) time.Duration {
	if tokens <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(tokens / l.rate * float64(time.Second)))
}

func (l *rateLimiter) sweep(shard *rateShard, now time.Time) {
	if now.Sub(shard.lastSweep) < sweepEvery {
		return
	}
	shard.lastSweep = now
	for id, b := range shard.buckets {
		if b.tokens+now.Sub(b.updated).Seconds()*l.rate >= l.burst {
			delete(shard.buckets, id)
		}
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
