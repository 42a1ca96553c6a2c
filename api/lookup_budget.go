package api

import (
	"errors"
	"hash/maphash"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// Default bounds of the database lookups of keys the verification cache
// does not know. A real client brings one key and needs one lookup per
// cache lifetime; made-up keys, free to produce in the right form, would
// otherwise each cost a query.
const (
	// DefaultKeyLookupsPerAddress is the lookups a second one client address
	// may cause.
	DefaultKeyLookupsPerAddress = 2
	// DefaultKeyLookupsPerSecond is the lookups a second of all clients
	// together.
	DefaultKeyLookupsPerSecond = 200
)

// Bursts of the lookup budgets, in seconds of their rate: a client may
// bring ten seconds' worth of new keys at once, all clients together
// five seconds' worth.
const (
	lookupBurstPerAddress = 10 * time.Second
	lookupBurstOverall    = 5 * time.Second
)

// errLookupBudgetSpent is the cause of the 503 of a request past the
// overall lookup budget.
var errLookupBudgetSpent = errors.New("the key lookups of all clients are over their budget")

// lookupBudget bounds the database lookups of uncached keys, per client
// address and overall, with the rate limiter's token buckets. Past a
// client's own budget the request is answered 429; past the overall
// budget, 503, as for a database that cannot keep up.
type lookupBudget struct {
	seed      maphash.Seed
	proxies   trustedProxies
	perClient *rateLimiter
	overall   *rateLimiter
}

func newLookupBudget(cfg Config) *lookupBudget {
	return &lookupBudget{
		seed:      maphash.MakeSeed(),
		proxies:   cfg.TrustedProxies,
		perClient: newRateLimiter(cfg.KeyLookupsPerAddress, burstOf(cfg.KeyLookupsPerAddress, lookupBurstPerAddress)),
		overall:   newRateLimiter(cfg.KeyLookupsPerSecond, burstOf(cfg.KeyLookupsPerSecond, lookupBurstOverall)),
	}
}

// spend takes one lookup of the request's client address (behind a
// trusted proxy, the one it names) at now, or says
// why it may not: a rateLimitedError for the client's own budget, an
// UnavailableError for the overall one. The recheck of a key that
// authenticated before (its verdict expired: keys.ErrVerdictExpired) is no
// made-up key and spends the overall budget only: through a database
// outage longer than a verdict is trusted, each request of a real client
// rechecks its key, and is answered the 503 of the database, not a 429.
func (b *lookupBudget) spend(c *fiber.Ctx, now time.Time, recheck bool) error {
	if !recheck {
		client := int64(maphash.Bytes(b.seed, boundAddress(b.proxies.clientAddress(c)).AsSlice()))
		if d := b.perClient.take(client, now); !d.allowed {
			return &rateLimitedError{retryAfter: d.retryAfter}
		}
	}
	if d := b.overall.take(0, now); !d.allowed {
		return models.Unavailable("key lookups", d.retryAfter, errLookupBudgetSpent)
	}
	return nil
}

// burstOf is the burst of a bucket of rate tokens a second that holds the
// tokens of the given time, at least one.
func burstOf(rate float64, worth time.Duration) int {
	return max(1, int(rate*worth.Seconds()))
}
