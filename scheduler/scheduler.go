package scheduler

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/crownsdev/crowns/models"
)

// Scheduler takes the 4-hourly and weekly clan snapshots and prunes old
// history. Several Schedulers (in one process or many) may share one
// database.
type Scheduler struct {
	clans   SnapshotStore
	source  ClanSource
	cfg     Config
	log     *slog.Logger
	limiter *rate.Limiter

	tickMu    sync.Mutex // one Tick at a time
	lastPrune time.Time  // guarded by tickMu
	// metrics counts slots; nil without Config.Metrics.
	metrics *slotMetrics
	// stopGrace is how long finishing writes go on once a stop began
	// (the constant stopGrace; tests shorten it).
	stopGrace time.Duration
}

// TickReport says what one Tick did.
type TickReport struct {
	// Planned counts jobs created for the current slots.
	Planned int64
	// Missed counts jobs whose window ended without a snapshot, and the
	// (clan, slot) pairs of slots no scheduler planned, recorded missed.
	Missed int
	// Stored counts snapshots stored; AlreadyStored jobs whose slot had a
	// snapshot already (taken by a track request).
	Stored, AlreadyStored int
	// Retried counts failed fetches due to be tried again.
	Retried int
	// Failed counts jobs that ended in an error this tick: a clan gone
	// upstream, a lost lease or a failed database write.
	Failed int
	// Pruned is the retention pass of this tick, if one was due.
	Pruned *models.PruneReport
}

// New builds a scheduler that stores through clans and fetches from
// source.
func New(clans SnapshotStore, source ClanSource, cfg Config) (*Scheduler, error) {
	if clans == nil || source == nil {
		return nil, errors.New("scheduler: a clan store and a clan source are required")
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	metrics, err := newSlotMetrics(cfg.Metrics)
	if err != nil {
		return nil, fmt.Errorf("scheduler: metrics: %w", err)
	}
	return &Scheduler{
		clans:     clans,
		source:    source,
		cfg:       cfg,
		log:       cfg.Logger.With("component", "scheduler", "owner", cfg.Owner),
		limiter:   rate.NewLimiter(rate.Limit(cfg.SnapshotRatePerSecond), cfg.SnapshotConcurrency),
		metrics:   metrics,
		stopGrace: stopGrace,
	}, nil
}

// Run ticks at once and then every TickInterval until ctx ends; each
// finished tick is logged at DEBUG ("scheduler tick done", with its
// report). When ctx ends it stops claiming jobs, gives back the ones whose
// fetch it cancels, finishes the writes under way (for at most stopGrace) and returns.
func (s *Scheduler) Run(ctx context.Context) error {
	s.log.Info("scheduler started", "tickInterval", s.cfg.TickInterval, "snapshotConcurrency", s.cfg.SnapshotConcurrency,
		"snapshotRatePerSecond", s.cfg.SnapshotRatePerSecond, "historyRetentionDays", s.cfg.HistoryRetentionDays)
	tickEvery(ctx, s.cfg.TickInterval, s.cfg.Clock, s.log, "scheduler", func(ctx context.Context) error {
		report, err := s.Tick(ctx)
		if err == nil {
			s.log.Debug("scheduler tick done", "planned", report.Planned, "stored", report.Stored,
				"alreadyStored", report.AlreadyStored, "missed", report.Missed, "retried", report.Retried, "failed", report.Failed)
		}
		return err
	})
	return nil
}

// Tick does one pass at the clock's time: make sure this month's and next
// month's snapshot partitions exist, plan the jobs of the current slots
// (a slot whose window has ended is never planned: after downtime only the
// current slot is caught up, and the slots no scheduler planned meanwhile
// are recorded as missed), record expired jobs as missed, run every due
// job, and prune old history when due. It returns when no job is due, or
// with the error of the first database step that failed (the claim of due
// jobs or the retention pass included), which it does not log: Run does.
func (s *Scheduler) Tick(ctx context.Context) (TickReport, error) {
	s.tickMu.Lock()
	defer s.tickMu.Unlock()
	var report TickReport
	now := s.cfg.Clock.Now()
	if err := s.clans.EnsureSnapshotPartitions(ctx, now, now.AddDate(0, 1, 0)); err != nil {
		return report, err
	}
	for _, kind := range []models.SnapshotKind{models.SnapshotFourHourly, models.SnapshotWeekly} {
		slot := kind.SlotAt(now)
		open := now.Before(slot.Add(kind.Window()))
		// The current slot is planned before it is counted as accounted
		// for: a tick that fails (or a process that dies) in between
		// leaves it to be planned by the next tick or, once its window
		// has ended, recorded missed, never neither.
		if open {
			planned, err := s.clans.PlanSnapshotJobs(ctx, kind, slot, now)
			if err != nil {
				return report, err
			}
			if planned > 0 {
				s.log.Info("snapshot slot planned", "kind", kind.String(), "slot", slot, "jobs", planned)
			}
			report.Planned += planned
			s.metrics.count(kind, slotPlanned, int(planned))
		}
		if err := s.recordUnplanned(ctx, kind, slot, open, now, &report); err != nil {
			return report, err
		}
	}
	var problems tickProblems
	missed, err := s.clans.ExpireSnapshotJobs(ctx, now)
	defer func() { s.logTickProblems(&problems, missed) }()
	report.Missed += len(missed)
	for _, m := range missed {
		s.metrics.count(m.Kind, slotMissed, 1)
	}
	if err != nil {
		return report, err
	}
	if err := s.runDueJobs(ctx, &report, &problems); err != nil {
		return report, err
	}
	if ctx.Err() != nil {
		return report, ctx.Err()
	}
	return report, s.pruneIfDue(ctx, now, &report)
}

// recordUnplanned records as missed the slots of kind before the current
// one (slot) that no scheduler planned, every replica having been down
// through their windows, and the current one too when its window has
// ended (open is false). Slots older than JobRetention are not recorded:
// their records would be pruned at once.
func (s *Scheduler) recordUnplanned(ctx context.Context, kind models.SnapshotKind, slot time.Time, open bool, now time.Time, report *TickReport) error {
	skippedBefore := slot
	if !open {
		skippedBefore = slot.Add(kind.Period())
	}
	recorded, err := s.clans.RecordUnplannedSlots(ctx, kind, skippedBefore, slot.Add(kind.Period()), now.Add(-s.cfg.JobRetention), now)
	if err != nil {
		return err
	}
	for _, u := range recorded {
		s.log.Warn("snapshot slot missed: no scheduler ran during its window", "kind", kind.String(), "slot", u.Slot, "clans", u.Clans)
		report.Missed += int(u.Clans)
		s.metrics.count(kind, slotMissed, int(u.Clans))
	}
	return nil
}

// runDueJobs claims due jobs in batches of SnapshotConcurrency and hands
// them to SnapshotConcurrency workers, which fetch (paced by the rate limiter) and store,
// until none is due or ctx ends. Every claimed job reaches a worker: when
// ctx ends, the workers give back what they cannot run. A failed claim
// ends the run (once the jobs already claimed are done) and is returned,
// for the tick to fail: Run logs it as it logs every failed tick.
func (s *Scheduler) runDueJobs(ctx context.Context, report *TickReport, problems *tickProblems) error {
	var counts [outcomeCount]atomic.Int64
	jobs := make(chan models.SnapshotJob)
	var wg sync.WaitGroup
	for range s.cfg.SnapshotConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for job := range jobs {
				_ = s.limiter.Wait(ctx) // fails only when ctx ends; runJob then gives the job back
				o := s.runJob(ctx, job, problems)
				counts[o].Add(1)
				s.metrics.finished(job, o, s.cfg.Clock.Now())
			}
		}()
	}
	var claimErr error
	for ctx.Err() == nil {
		batch, err := s.claim(ctx)
		if err != nil {
			claimErr = err
			break
		}
		if len(batch) == 0 {
			break
		}
		for _, job := range batch {
			jobs <- job
		}
	}
	close(jobs)
	wg.Wait()
	report.Stored += int(counts[outcomeStored].Load())
	report.AlreadyStored += int(counts[outcomeAlreadyStored].Load())
	report.Retried += int(counts[outcomeRetry].Load())
	report.Failed += int(counts[outcomeFailed].Load() + counts[outcomeMissed].Load())
	return claimErr
}

// claim takes a batch of due jobs, one per worker. The claim is not
// cancelled with ctx (only stopGrace after it, see finishing): a claim
// the database committed must reach this process, or the jobs would sit
// leased to nobody until their lease expired.
func (s *Scheduler) claim(ctx context.Context) ([]models.SnapshotJob, error) {
	claimCtx, cancel := finishing(ctx, writeTimeout, s.stopGrace)
	defer cancel()
	return s.clans.ClaimSnapshotJobs(claimCtx, s.cfg.Owner, s.cfg.Clock.Now(), s.cfg.Lease, s.cfg.SnapshotConcurrency)
}

// pruneIfDue removes the snapshots of the UTC days before today and the
// HistoryRetentionDays before it (whole days, as history requests count
// them) and finished jobs older than JobRetention, at most once per
// RetentionEvery. A last pass in the clock's future (the clock was put
// back) makes it due at once rather than when the clock catches up.
func (s *Scheduler) pruneIfDue(ctx context.Context, now time.Time, report *TickReport) error {
	if since := now.Sub(s.lastPrune); !s.lastPrune.IsZero() && since >= 0 && since < s.cfg.RetentionEvery {
		return nil
	}
	snapshotsBefore := models.HistoryKeptSince(now, s.cfg.HistoryRetentionDays)
	pruned, err := s.clans.PruneHistory(ctx, snapshotsBefore, now.Add(-s.cfg.JobRetention))
	if err != nil {
		// Run logs it, as every failed tick; the pass is tried again
		// at the next tick.
		return fmt.Errorf("prune history before %s: %w", snapshotsBefore.Format(time.DateOnly), err)
	}
	s.lastPrune = now
	report.Pruned = &pruned
	if pruned.DeletedSnapshots > 0 || len(pruned.DroppedPartitions) > 0 || pruned.DeletedJobs > 0 {
		s.log.Info("old history pruned", "before", snapshotsBefore, "droppedPartitions", pruned.DroppedPartitions,
			"deletedSnapshots", pruned.DeletedSnapshots, "deletedJobs", pruned.DeletedJobs)
	}
	return nil
}
