package scheduler

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

// Defaults of Config.
const (
	DefaultSnapshotConcurrency   = 4
	DefaultSnapshotRatePerSecond = 5
	DefaultTickInterval          = 30 * time.Second
	DefaultLease                 = 2 * time.Minute
	DefaultBackoffMin            = 15 * time.Second
	DefaultBackoffMax            = 10 * time.Minute
	DefaultHistoryRetentionDays  = 400
	DefaultRetentionEvery        = 6 * time.Hour
	DefaultJobRetention          = 35 * 24 * time.Hour
)

// MaxSnapshotWait is the most SnapshotConcurrency / SnapshotRatePerSecond
// may be, in time, for a lease and an upstream timeout: jobs are claimed a
// batch of SnapshotConcurrency ahead of the workers, each of which waits
// its turn at the rate, so a claimed job's fetch may start up to twice
// that after its claim; that, twice over for safety, and the fetch must
// fit in the lease, or the job would be fetched again by whoever takes it
// over.
func MaxSnapshotWait(lease, upstreamTimeout time.Duration) time.Duration {
	return (lease - upstreamTimeout) / 4
}

// snapshotWait is SnapshotConcurrency / SnapshotRatePerSecond, in time.
func snapshotWait(concurrency int, ratePerSecond float64) time.Duration {
	return time.Duration(float64(concurrency) / ratePerSecond * float64(time.Second))
}

// SnapshotWaitFits tells whether concurrency workers at ratePerSecond
// fetch every claimed job within its lease (see MaxSnapshotWait).
func SnapshotWaitFits(concurrency int, ratePerSecond float64, lease, upstreamTimeout time.Duration) bool {
	return ratePerSecond > 0 && snapshotWait(concurrency, ratePerSecond) <= MaxSnapshotWait(lease, upstreamTimeout)
}

// writeTimeout bounds the database writes that finish a job; they run
// even while the scheduler is stopping.
const writeTimeout = 30 * time.Second

// Config tunes a Scheduler. Zero values take the defaults above; only
// TrackAddress is required.
type Config struct {
	// TrackAddress is the address a clan description must contain; every
	// fetch records whether it still does (the clan's "legible").
	TrackAddress string
	// Owner names this replica in job leases; default host-pid-random.
	Owner string
	// SnapshotConcurrency bounds this process's upstream fetches in flight
	// (CROWNS_SNAPSHOT_CONCURRENCY).
	SnapshotConcurrency int
	// SnapshotRatePerSecond bounds this process's upstream fetches per
	// second, with a burst of SnapshotConcurrency
	// (CROWNS_SNAPSHOT_RATE_PER_SECOND). Replicas each have their own
	// budget.
	SnapshotRatePerSecond float64
	// TickInterval is how often Run ticks.
	TickInterval time.Duration
	// Lease is how long a claimed job is this replica's; after it another
	// replica may take the job over. Must exceed UpstreamTimeout.
	Lease time.Duration
	// UpstreamTimeout bounds one upstream fetch: the game API client's own
	// bound on a call, retries included (crowns serve passes
	// CROWNS_UPSTREAM_TIMEOUT; default upstream.DefaultTimeout), so that
	// the lease is checked against what a fetch may really take.
	UpstreamTimeout time.Duration
	// BackoffMin and BackoffMax bound the wait before retrying a failed
	// fetch: it doubles per attempt, with jitter, between the two.
	BackoffMin, BackoffMax time.Duration
	// HistoryRetentionDays is how many days of history are kept
	// (CROWNS_HISTORY_RETENTION_DAYS).
	HistoryRetentionDays int
	// RetentionEvery is how often a tick prunes old history.
	RetentionEvery time.Duration
	// JobRetention is how long finished jobs (done or missed, the record of
	// a missed slot) are kept.
	JobRetention time.Duration
	// Clock tells the time (nil: the system clock); Logger receives the
	// scheduler's logs (nil: discarded).
	Clock  models.Clock
	Logger *slog.Logger
	// Metrics, when set, is where the scheduler's metrics are registered
	// (crowns_scheduler_slots_total, crowns_scheduler_snapshot_lag_seconds);
	// nil records none.
	Metrics prometheus.Registerer
}

// withDefaults fills the zero values and checks the rest.
func (c Config) withDefaults() (Config, error) {
	c.SnapshotConcurrency = cmp.Or(c.SnapshotConcurrency, DefaultSnapshotConcurrency)
	c.SnapshotRatePerSecond = cmp.Or(c.SnapshotRatePerSecond, DefaultSnapshotRatePerSecond)
	c.TickInterval = cmp.Or(c.TickInterval, DefaultTickInterval)
	c.Lease = cmp.Or(c.Lease, DefaultLease)
	c.UpstreamTimeout = cmp.Or(c.UpstreamTimeout, upstream.DefaultTimeout)
	c.BackoffMin = cmp.Or(c.BackoffMin, DefaultBackoffMin)
	c.BackoffMax = cmp.Or(c.BackoffMax, DefaultBackoffMax)
	c.HistoryRetentionDays = cmp.Or(c.HistoryRetentionDays, DefaultHistoryRetentionDays)
	c.RetentionEvery = cmp.Or(c.RetentionEvery, DefaultRetentionEvery)
	c.JobRetention = cmp.Or(c.JobRetention, DefaultJobRetention)
	c.Clock, c.Logger, c.Owner = workerDefaults(c.Clock, c.Logger, c.Owner)
	var problems ConfigProblems
	if strings.TrimSpace(c.TrackAddress) == "" {
		problems.add("TrackAddress", "is required")
	}
	if c.SnapshotConcurrency < 0 {
		problems.add("SnapshotConcurrency", "must not be negative")
	}
	if c.SnapshotRatePerSecond < 0 {
		problems.add("SnapshotRatePerSecond", "must not be negative")
	}
	if c.HistoryRetentionDays < 0 {
		problems.add("HistoryRetentionDays", "must not be negative")
	}
	if c.Lease <= c.UpstreamTimeout {
		problems.add("UpstreamTimeout", "(%s) must be shorter than Lease (%s)", c.UpstreamTimeout, c.Lease)
	} else if c.SnapshotRatePerSecond > 0 && !SnapshotWaitFits(c.SnapshotConcurrency, c.SnapshotRatePerSecond, c.Lease, c.UpstreamTimeout) {
		problems.add("SnapshotConcurrency", "/ SnapshotRatePerSecond must be at most %s with this Lease and UpstreamTimeout (a claimed job is fetched within its lease)",
			MaxSnapshotWait(c.Lease, c.UpstreamTimeout))
	}
	if c.BackoffMax < c.BackoffMin {
		problems.add("BackoffMax", "must not be less than BackoffMin")
	}
	if len(problems) > 0 {
		return c, problems
	}
	return c, nil
}

// defaultOwner names this process: host, pid and a random suffix (a
// restarted process is a new owner).
func defaultOwner() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "crowns"
	}
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(suffix))
}
