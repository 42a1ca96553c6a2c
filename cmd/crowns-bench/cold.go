package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"golang.org/x/sync/errgroup"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/scheduler"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// Settings of the cold bench.
const (
	// coldHistoryReads is how many history reads the median is taken of.
	coldHistoryReads = 200
	// coldConcurrency is the scheduler's fetches in flight; the upstream
	// rate is unlimited.
	coldConcurrency = 32
	// coldTrackWorkers track the clans of the tick in parallel.
	coldTrackWorkers = 8
)

// coldReport is the outcome of crowns-bench --cold.
type coldReport struct {
	Database string `json:"database"`
	CPUs     int    `json:"cpus"`
	// HistoryRead is a 7-day history read of a 50-member clan from the
	// database: its median and 99th percentile over coldHistoryReads.
	HistoryReadMedianMs float64 `json:"historyReadMedianMs"`
	HistoryReadP99Ms    float64 `json:"historyReadP99Ms"`
	HistorySnapshots    int     `json:"historySnapshots"`
	// Tick is one scheduler tick snapshotting every tracked clan.
	TickClans       int      `json:"tickClans"`
	TickStored      int      `json:"tickStored"`
	TickFailed      int      `json:"tickFailed"`
	TickSeconds     float64  `json:"tickSeconds"`
	TickConcurrency int      `json:"tickConcurrency"`
	TrackSeconds    float64  `json:"trackSeconds"`
	Targets         []target `json:"targets"`
}

// Targets of the cold paths.
const (
	targetHistoryRead = 3 * time.Millisecond
	targetTick        = 120 * time.Second
)

// runColdBench measures the cold paths: what a history read costs the
// database when no cache helps, and how long one scheduler tick takes to
// snapshot many tracked clans.
func runCold(ctx context.Context, req request, stdout io.Writer, progress func(string, ...any)) error {
	dataDir, err := os.MkdirTemp("", "crowns-bench-cold-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dataDir) }()
	db, err := openStore(ctx, req.databaseURL, dataDir)
	if err != nil {
		return err
	}
	defer func() { _ = db.Close() }()
	if tracked, err := db.ListTrackedClans(ctx, true); err != nil || len(tracked) > 0 {
		return errors.Join(err, errors.New("the database already holds tracked clans: run the bench on an empty database or schema (it fills it)"))
	}
	report := coldReport{Database: databaseName(req.databaseURL), CPUs: runtime.NumCPU(), TickClans: req.coldClans, TickConcurrency: coldConcurrency}

	// The world of the tick, its clock a minute into a slot.
	slot := models.SnapshotFourHourly.SlotAt(time.Now().UTC())
	clock := models.NewManualClock(slot.Add(time.Minute))
	world := sandbox.NewWorld(sandbox.Config{Clans: max(req.coldClans, sandbox.DefaultClans), TrackAddress: trackAddress, Clock: clock})

	progress("history read: a 50-member clan with %d days of 4-hourly history", historyDays+1)
	if err := coldHistoryRead(ctx, db, world, clock, &report); err != nil {
		return err
	}
	progress("scheduler tick: tracking %d clans, then snapshotting them all in the next slot", req.coldClans)
	if err := coldTick(ctx, db, world, clock, req, &report); err != nil {
		return err
	}
	report.Targets = []target{
		{Target: fmt.Sprintf("7-day history read of a 50-member clan ≤ %d ms (median)", targetHistoryRead.Milliseconds()),
			Got: fmt.Sprintf("%.2f ms", report.HistoryReadMedianMs), Met: report.HistoryReadMedianMs <= milliseconds(targetHistoryRead)},
		{Target: fmt.Sprintf("scheduler tick of %d clans ≤ %d s", req.coldClans, int(targetTick.Seconds())),
			Got: fmt.Sprintf("%.1f s, %d stored, %d failed", report.TickSeconds, report.TickStored, report.TickFailed),
			Met: report.TickSeconds <= targetTick.Seconds() && report.TickStored == req.coldClans},
	}
	fmt.Fprintf(stdout, "\ncrowns-bench --cold — %s, %d CPUs\n", report.Database, report.CPUs)
	fmt.Fprintf(stdout, "  history read, 7 days of a 50-member clan (%d snapshots): median %.2f ms, p99 %.2f ms over %d reads\n",
		report.HistorySnapshots, report.HistoryReadMedianMs, report.HistoryReadP99Ms, coldHistoryReads)
	fmt.Fprintf(stdout, "  scheduler tick: %d clans snapshotted in %.1f s (%.0f/s; %d fetches in flight, no upstream rate limit; %d failed)\n",
		report.TickStored, report.TickSeconds, float64(report.TickStored)/report.TickSeconds, coldConcurrency, report.TickFailed)
	fmt.Fprintf(stdout, "  (tracking the clans beforehand took %.1f s)\n\ntargets:\n", report.TrackSeconds)
	printTargets(stdout, report.Targets)
	return writeJSON(req.jsonPath, report)
}

// coldHistoryRead seeds the first 50-member clan of the world with 8 days
// of history and times reads of its 7-day window (the player dictionary
// cached, as a warm process has it).
func coldHistoryRead(ctx context.Context, db *store.Store, world *sandbox.World, clock *models.ManualClock, report *coldReport) error {
	var tag string
	for _, candidate := range world.ClanTags() {
		if clan, ok := world.Clan(candidate); ok && len(clan.MemberList) == 50 {
			tag = candidate
			break
		}
	}
	if tag == "" {
		return errors.New("the sandbox has no clan of 50 members")
	}
	now := clock.Now()
	if err := seedClans(ctx, db, []string{tag}, len(world.ClanTags()), historyDays, now, trackAddress); err != nil {
		return err
	}
	reader := db
	from, to := models.HistoryWindow(now, historyDays)
	latencies := make([]time.Duration, 0, coldHistoryReads)
	for i := range coldHistoryReads + 1 {
		began := time.Now()
		history, err := reader.ClanHistory(ctx, tag, models.SnapshotFourHourly, from, to)
		if err != nil {
			return err
		}
		if i > 0 { // the first read fills the dictionary cache
			latencies = append(latencies, time.Since(began))
		}
		report.HistorySnapshots = len(history)
	}
	slices.Sort(latencies)
	report.HistoryReadMedianMs = milliseconds(latencies[len(latencies)/2])
	report.HistoryReadP99Ms = milliseconds(latencies[int(math.Ceil(0.99*float64(len(latencies))))-1])
	return nil
}

// coldTick tracks the tick's clans at the current slot, moves to the next
// slot and times one tick of a fresh scheduler (cold dictionary cache, as
// after a restart) against the sandbox over HTTP.
func coldTick(ctx context.Context, db *store.Store, world *sandbox.World, clock *models.ManualClock, req request, report *coldReport) error {
	baseURL, stop, err := sandbox.Start(ctx, world, "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer func() { _ = stop(context.WithoutCancel(ctx)) }()
	game, err := sandboxClient(world, clock)
	if err != nil {
		return err
	}
	began := time.Now()
	tags := world.ClanTags()[:req.coldClans]
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(coldTrackWorkers)
	for _, tag := range tags {
		g.Go(func() error {
			clan, err := game.Clan(gctx, tag)
			if err != nil {
				return fmt.Errorf("clan %s from the sandbox: %w", tag, err)
			}
			_, err = db.Track(gctx, models.TrackRequest{Tag: tag, Clan: clan, Legible: true, By: models.TrackedByOperator, Now: clock.Now()})
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	report.TrackSeconds = time.Since(began).Seconds()

	client, err := upstream.New(upstream.Config{BaseURL: baseURL, Token: "sandbox", Timeout: 30 * time.Second,
		Concurrency: coldConcurrency, Clock: clock, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	sched, err := scheduler.New(db, client, scheduler.Config{
		TrackAddress: trackAddress, SnapshotConcurrency: coldConcurrency, SnapshotRatePerSecond: math.MaxFloat64, Clock: clock,
	})
	if err != nil {
		return err
	}
	clock.Advance(4 * time.Hour)
	began = time.Now()
	tick, err := sched.Tick(ctx)
	report.TickSeconds = time.Since(began).Seconds()
	report.TickStored, report.TickFailed = tick.Stored, tick.Failed+tick.Retried
	return err
}
