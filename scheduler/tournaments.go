package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

// Names of the tournament refresher's periodic tasks.
const (
	tournamentDiscoveryTask = "tournament-discovery"
	tournamentRetentionTask = "tournament-retention"
)

// tournamentWriteTimeout bounds the database write that stores a lookup;
// it runs even while the refresher is stopping, for at most stopGrace
// more (see finishing).
const tournamentWriteTimeout = 15 * time.Second

// TournamentSource is the game upstream as the tournament refresher uses
// it: one tournament in full (models.ErrNotFound for a tag it does not
// know), or the tournaments whose name contains a term, without members.
type TournamentSource interface {
	Tournament(ctx context.Context, tag string) (models.TournamentDetails, error)
	SearchTournaments(ctx context.Context, name string, limit int) ([]models.TournamentDetails, error)
}

// TournamentRefresher keeps the stored tournaments current: it discovers
// new ones by searching upstream for the configured terms, looks up again
// those that have not ended (when stale, or when their status is due to
// move on), forgets those the upstream no longer knows and prunes ended
// ones after the retention. Several refreshers (in one process or many)
// may share one database: the searches and the retention pass run on one
// replica per period, and each lookup is leased to one replica through
// the database.
type TournamentRefresher struct {
	db     TournamentStore
	source TournamentSource
	cfg    TournamentRefresherConfig
	log    *slog.Logger
	tickMu sync.Mutex // one Tick at a time
	// budget holds RefreshPerMinute lookups a minute, by the clock, over
	// ticks however close or far apart: at most a tick's share at once.
	budget *rate.Limiter
	// metrics counts lookups; nil without Config.Metrics.
	metrics *refreshMetrics
}

// TournamentTickReport says what one Tick did.
type TournamentTickReport struct {
	// Searched is true when this tick ran the discovery searches;
	// Discovered counts the tournaments they found.
	Searched   bool
	Discovered int
	// Refreshed counts tournaments looked up and stored; Gone those the
	// upstream no longer knows (forgotten); Failed lookups or writes that
	// failed (tried again once their lease ends).
	Refreshed, Gone, Failed int
	// Pruned counts tournaments dropped by the retention pass, if it ran.
	Pruned int64
}

// NewTournamentRefresher builds a refresher that stores through db and
// looks tournaments up in source.
func NewTournamentRefresher(db TournamentStore, source TournamentSource, cfg TournamentRefresherConfig) (*TournamentRefresher, error) {
	if db == nil || source == nil {
		return nil, errors.New("tournament refresher: a database and a tournament source are required")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("tournament refresher: %w", err)
	}
	metrics, err := newRefreshMetrics(cfg.Metrics)
	if err != nil {
		return nil, fmt.Errorf("tournament refresher: metrics: %w", err)
	}
	return &TournamentRefresher{
		db:      db,
		source:  source,
		cfg:     cfg,
		log:     cfg.Logger.With("component", "tournament-refresher", "owner", cfg.Owner),
		metrics: metrics,
		budget:  rate.NewLimiter(rate.Limit(float64(cfg.RefreshPerMinute)/time.Minute.Seconds()), cfg.refreshesPerTick()),
	}, nil
}

// Run ticks at once and then every TickInterval until ctx ends. When ctx
// ends the lookups under way are cancelled and given back (see refresh),
// the writes under way finish, and Run returns.
func (r *TournamentRefresher) Run(ctx context.Context) error {
	r.log.Info("tournament refresher started", "tickInterval", r.cfg.TickInterval,
		"refreshPerMinute", r.cfg.RefreshPerMinute, "refreshInterval", r.cfg.RefreshInterval,
		"discoveryInterval", r.cfg.DiscoveryInterval, "searchTerms", r.cfg.SearchTerms, "retention", r.cfg.Retention)
	tickEvery(ctx, r.cfg.TickInterval, r.cfg.Clock, r.log, "tournament refresher", func(ctx context.Context) error {
		_, err := r.Tick(ctx)
		return err
	})
	return nil
}

// Tick does one pass at the clock's time: the discovery searches when
// their period is due and unclaimed, the lookups of due tournaments (at
// most the tick's share of RefreshPerMinute), and the retention pass
// when due. Upstream failures are counted and summed up in one WARN line
// a pass (each search's and lookup's own line, and the game API client's,
// at DEBUG); the error is a database failure.
func (r *TournamentRefresher) Tick(ctx context.Context) (TournamentTickReport, error) {
	r.tickMu.Lock()
	defer r.tickMu.Unlock()
	var (
		report   TournamentTickReport
		problems refreshProblems
	)
	defer r.logRefreshProblems(&problems)
	ctx = upstream.CallerSumsUpFailures(ctx)
	if err := r.discoverIfDue(ctx, &report, &problems); err != nil {
		return report, err
	}
	if err := r.refreshDue(ctx, &report, &problems); err != nil {
		return report, err
	}
	return report, r.pruneIfDue(ctx, &report)
}

// refreshDue claims as many due tournaments as the lookup budget holds
// and looks them up, a few at a time.
func (r *TournamentRefresher) refreshDue(ctx context.Context, report *TournamentTickReport, problems *refreshProblems) error {
	now := r.cfg.Clock.Now()
	// The budget's tokens are a float: a whole lookup earned over a tick
	// may read a hair below 1.
	limit := int(r.budget.TokensAt(now) + 1e-6)
	if limit < 1 {
		return nil
	}
	tags, err := r.db.ClaimTournamentRefreshes(ctx, models.TournamentRefreshClaim{
		Owner:      r.cfg.Owner,
		Now:        now,
		StaleAfter: r.cfg.RefreshInterval,
		Lease:      r.cfg.Lease,
		Limit:      limit,
	})
	if err != nil {
		return err
	}
	r.budget.ReserveN(now, len(tags))
	var (
		mu    sync.Mutex
		group errgroup.Group
	)
	group.SetLimit(r.cfg.Concurrency)
	for _, tag := range tags {
		group.Go(func() error {
			outcome := r.refresh(ctx, tag, problems)
			r.metrics.count(outcome)
			mu.Lock()
			defer mu.Unlock()
			outcome.count(report)
			return nil
		})
	}
	return group.Wait()
}

// refresh looks one claimed tournament up and stores it, or forgets it
// when the upstream no longer knows it; a failed lookup is noted in
// problems.
func (r *TournamentRefresher) refresh(ctx context.Context, tag string, problems *refreshProblems) refreshOutcome {
	fetchCtx, cancel := context.WithTimeout(ctx, r.cfg.UpstreamTimeout)
	details, err := r.source.Tournament(fetchCtx, tag)
	cancel()
	writeCtx, cancelWrite := finishing(ctx, tournamentWriteTimeout, stopGrace)
	defer cancelWrite()
	switch {
	case errors.Is(err, models.ErrNotFound):
		if err := r.db.DeleteTournament(writeCtx, tag); err != nil {
			r.log.Warn("could not forget a tournament gone upstream", "tag", tag, "error", err)
			return refreshFailed
		}
		r.log.Info("tournament gone upstream: forgotten", "tag", tag)
		return refreshGone
	case err != nil && ctx.Err() != nil:
		// Cut by a shutdown: the lookup is given back, for whichever
		// replica ticks next, rather than left until its lease ends.
		if err := r.db.ReleaseTournamentRefresh(writeCtx, tag, r.cfg.Owner); err != nil {
			r.log.Warn("giving back a tournament lookup on shutdown failed; it is taken over when its lease ends", "tag", tag, "error", err)
		}
		return refreshFailed
	case err != nil:
		problems.lookupFailed(tag, err)
		r.log.Debug("tournament lookup failed; tried again after its lease", "tag", tag, "lease", r.cfg.Lease, "error", err)
		return refreshFailed
	}
	if err := r.db.SaveLookedUpTournament(writeCtx, details, r.cfg.Clock.Now()); err != nil {
		r.log.Warn("could not store a refreshed tournament", "tag", tag, "error", err)
		return refreshFailed
	}
	return refreshDone
}

// refreshOutcome is how the lookup of one claimed tournament ended.
type refreshOutcome int

const (
	refreshDone refreshOutcome = iota
	refreshGone
	refreshFailed
	refreshOutcomeCount
)

// count adds the outcome to its counter of report.
func (o refreshOutcome) count(report *TournamentTickReport) {
	switch o {
	case refreshDone:
		report.Refreshed++
	case refreshGone:
		report.Gone++
	case refreshFailed:
		report.Failed++
	}
}
