package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/scheduler"
)

// start is a Tuesday morning; its 4-hourly slot is 08:00.
var start = time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC)

// testConfig is a scheduler configuration for tests: no real pacing, short
// backoff, explicit owner.
func testConfig(clock models.Clock, owner string) scheduler.Config {
	return scheduler.Config{
		TrackAddress:          trackAddress,
		Owner:                 owner,
		SnapshotConcurrency:   4,
		SnapshotRatePerSecond: 100_000,
		Lease:                 2 * time.Minute,
		UpstreamTimeout:       30 * time.Second,
		BackoffMin:            time.Minute,
		BackoffMax:            10 * time.Minute,
		Clock:                 clock,
	}
}

// env is a scheduler over a fresh database and a test world.
type env struct {
	clans     *store.Store
	clock     *models.ManualClock
	world     *world
	scheduler *scheduler.Scheduler
	tracker   *scheduler.Tracker
}

func newEnv(t *testing.T, db *store.Store, clanCount int) *env {
	t.Helper()
	clock := models.NewManualClock(start)
	e := &env{clans: db, clock: clock, world: newWorld(t, clock, clanCount)}
	var err error
	if e.scheduler, err = scheduler.New(e.clans, e.world.source, testConfig(clock, "replica-a")); err != nil {
		t.Fatal(err)
	}
	e.tracker, err = scheduler.NewTracker(e.clans, e.world.source, scheduler.TrackerConfig{TrackAddress: trackAddress, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// trackAll tracks every trackable clan of the world at the clock's time.
func (e *env) trackAll(t *testing.T) {
	t.Helper()
	for i, tag := range e.world.trackable {
		if err := e.tracker.TrackClan(context.Background(), tag, int64(100+i)); err != nil {
			t.Fatalf("track %s: %v", tag, err)
		}
	}
}

func (e *env) tick(t *testing.T) scheduler.TickReport {
	t.Helper()
	report, err := e.scheduler.Tick(context.Background())
	if err != nil {
		t.Fatalf("tick at %s: %v", e.clock.Now(), err)
	}
	return report
}

func (e *env) history(t *testing.T, tag string, kind models.SnapshotKind, days int) []models.HistorySnapshot {
	t.Helper()
	from, to := models.HistoryWindow(e.clock.Now(), days)
	history, err := e.clans.ClanHistory(context.Background(), tag, kind, from, to)
	if err != nil {
		t.Fatalf("history of %s: %v", tag, err)
	}
	return history
}

func historySlots(history []models.HistorySnapshot) []string {
	keys := []string{}
	for _, s := range history {
		keys = append(keys, models.HistoryKey(s.Slot))
	}
	return keys
}

// expectRunReturnsNil waits for a Run's result on done: nil, within half
// a minute of its context ending.
func expectRunReturnsNil(t *testing.T, done <-chan error) {
	t.Helper()
	expectRunReturnsNilWithin(t, done, 30*time.Second)
}

// expectRunReturnsNilWithin is expectRunReturnsNil, waiting at most within.
func expectRunReturnsNilWithin(t *testing.T, done <-chan error, within time.Duration) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run returned %v, want nil on shutdown", err)
		}
	case <-time.After(within):
		t.Fatalf("Run did not return within %s of its context ending", within)
	}
}
