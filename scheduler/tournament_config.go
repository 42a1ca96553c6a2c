package scheduler

import (
	"cmp"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

// Defaults of TournamentRefresherConfig.
const (
	DefaultTournamentSearchLimit       = 100
	DefaultTournamentDiscoveryInterval = 15 * time.Minute
	DefaultTournamentRefreshInterval   = 10 * time.Minute
	DefaultTournamentRefreshPerMinute  = 60
	DefaultTournamentTickInterval      = 30 * time.Second
	DefaultTournamentConcurrency       = 4
	DefaultTournamentLease             = 2 * time.Minute
	DefaultTournamentRetention         = 72 * time.Hour
	DefaultTournamentPruneEvery        = time.Hour
)

// MinTournamentSearchTermLength is the shortest name the game API
// searches for.
const MinTournamentSearchTermLength = 3

// DefaultTournamentSearchTerms are the words searched for when no terms
// are configured: words common in tournament names, which also find every
// tournament of the sandbox world.
func DefaultTournamentSearchTerms() []string {
	return []string{"cup", "clash", "battle", "league", "arena", "open", "brawl", "masters", "showdown",
		"championship", "tournament", "free", "royale"}
}

// TournamentRefresherConfig tunes a TournamentRefresher. Zero values take
// the defaults above.
type TournamentRefresherConfig struct {
	// SearchTerms are the names searched for upstream to discover new
	// tournaments, each at least MinTournamentSearchTermLength characters.
	SearchTerms []string
	// SearchLimit is how many results one search asks for.
	SearchLimit int
	// DiscoveryInterval is how often the searches run, by one replica.
	DiscoveryInterval time.Duration
	// RefreshInterval is how long a tournament that has not ended may go
	// without a sighting before it is looked up again; it is also looked
	// up as soon as its status is due to move on.
	RefreshInterval time.Duration
	// RefreshPerMinute bounds this replica's lookups of known
	// tournaments, by the clock, however close or far apart the ticks:
	// each tick takes at most its share of a minute, and what the ticks
	// since the last one earned.
	RefreshPerMinute int
	// TickInterval is how often Run ticks.
	TickInterval time.Duration
	// Concurrency bounds this replica's lookups in flight.
	Concurrency int
	// Lease is how long a claimed tournament is this replica's; a failed
	// lookup is tried again, by any replica, once it ends. Must exceed
	// UpstreamTimeout.
	Lease time.Duration
	// UpstreamTimeout bounds one lookup (CROWNS_UPSTREAM_TIMEOUT), as
	// Config.UpstreamTimeout bounds a snapshot's fetch.
	UpstreamTimeout time.Duration
	// Retention is how long a tournament is kept after it ended (or,
	// whatever its status, after it was last seen).
	Retention time.Duration
	// PruneEvery is how often the retention pass runs, by one replica.
	PruneEvery time.Duration
	// Owner names this replica in leases; default host-pid-random.
	Owner string
	// Clock tells the time (nil: the system clock); Logger receives the
	// refresher's logs (nil: discarded).
	Clock  models.Clock
	Logger *slog.Logger
	// Metrics, when set, is where the refresher's metrics are registered
	// (crowns_scheduler_tournament_refreshes_total); nil records none.
	Metrics prometheus.Registerer
}

// refreshesPerTick is how many lookups one tick may claim.
func (c TournamentRefresherConfig) refreshesPerTick() int {
	return max(1, int(int64(c.RefreshPerMinute)*int64(c.TickInterval)/int64(time.Minute)))
}

// Bounds of the tournament refresher's settings.
const (
	// MaxTournamentSearchTerms bounds SearchTerms: each term is one
	// upstream search per discovery.
	MaxTournamentSearchTerms = 50
	// MinTournamentInterval bounds DiscoveryInterval and RefreshInterval.
	MinTournamentInterval = time.Minute
	// MinTournamentRetention bounds Retention.
	MinTournamentRetention = time.Hour
	// MaxTournamentRefreshPerMinute bounds RefreshPerMinute.
	MaxTournamentRefreshPerMinute = 6000
)

// Checked is the configuration with its zero values filled with the
// defaults, or every problem of the rest as ConfigProblems, each naming
// its field; the configuration of crowns serve reads each field from the
// environment variable of the same name (CROWNS_TOURNAMENT_REFRESH_INTERVAL
// is RefreshInterval) and reports these problems, named by those
// variables, at start-up.
func (c TournamentRefresherConfig) Checked() (TournamentRefresherConfig, error) {
	return c.withDefaults()
}

// withDefaults fills the zero values and checks the rest.
func (c TournamentRefresherConfig) withDefaults() (TournamentRefresherConfig, error) {
	if len(c.SearchTerms) == 0 {
		c.SearchTerms = DefaultTournamentSearchTerms()
	}
	c.SearchLimit = cmp.Or(c.SearchLimit, DefaultTournamentSearchLimit)
	c.DiscoveryInterval = cmp.Or(c.DiscoveryInterval, DefaultTournamentDiscoveryInterval)
	c.RefreshInterval = cmp.Or(c.RefreshInterval, DefaultTournamentRefreshInterval)
	c.RefreshPerMinute = cmp.Or(c.RefreshPerMinute, DefaultTournamentRefreshPerMinute)
	c.TickInterval = cmp.Or(c.TickInterval, DefaultTournamentTickInterval)
	c.Concurrency = cmp.Or(c.Concurrency, DefaultTournamentConcurrency)
	c.Lease = cmp.Or(c.Lease, DefaultTournamentLease)
	c.UpstreamTimeout = cmp.Or(c.UpstreamTimeout, upstream.DefaultTimeout)
	c.Retention = cmp.Or(c.Retention, DefaultTournamentRetention)
	c.PruneEvery = cmp.Or(c.PruneEvery, DefaultTournamentPruneEvery)
	c.Clock, c.Logger, c.Owner = workerDefaults(c.Clock, c.Logger, c.Owner)
	var problems ConfigProblems
	terms := make([]string, len(c.SearchTerms))
	for i, term := range c.SearchTerms {
		terms[i] = strings.TrimSpace(term)
		if utf8.RuneCountInString(terms[i]) < MinTournamentSearchTermLength {
			problems.add("SearchTerms", "holds %q, shorter than %d characters", term, MinTournamentSearchTermLength)
		}
	}
	c.SearchTerms = terms
	if len(terms) > MaxTournamentSearchTerms {
		problems.add("SearchTerms", "lists more than %d terms", MaxTournamentSearchTerms)
	}
	if c.DiscoveryInterval < MinTournamentInterval {
		problems.add("DiscoveryInterval", "must be at least %s", MinTournamentInterval)
	}
	if c.RefreshInterval < MinTournamentInterval {
		problems.add("RefreshInterval", "must be at least %s", MinTournamentInterval)
	}
	if c.Retention < MinTournamentRetention {
		problems.add("Retention", "must be at least %s", MinTournamentRetention)
	}
	if c.RefreshPerMinute > MaxTournamentRefreshPerMinute {
		problems.add("RefreshPerMinute", "must be at most %d", MaxTournamentRefreshPerMinute)
	}
	if c.SearchLimit < 0 {
		problems.add("SearchLimit", "must not be negative")
	}
	if c.RefreshPerMinute < 0 {
		problems.add("RefreshPerMinute", "must not be negative")
	}
	if c.Concurrency < 0 {
		problems.add("Concurrency", "must not be negative")
	}
	if c.TickInterval < 0 {
		problems.add("TickInterval", "must not be negative")
	}
	if c.PruneEvery < 0 {
		problems.add("PruneEvery", "must not be negative")
	}
	if c.Lease <= c.UpstreamTimeout {
		problems.add("UpstreamTimeout", "(%s) must be shorter than the lease of a tournament lookup (Lease, %s)", c.UpstreamTimeout, c.Lease)
	}
	if len(problems) > 0 {
		return c, problems
	}
	return c, nil
}
