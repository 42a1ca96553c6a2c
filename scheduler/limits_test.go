package scheduler_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
)

// twelveOhSeven is inside the 12:00 slot of start's day: every clan
// tracked at start has that slot due.
var twelveOhSeven = start.Add(2*time.Hour + 37*time.Minute)

// tickResult is what a Tick run in the background returned.
type tickResult struct {
	report scheduler.TickReport
	err    error
}

// TestUpstreamFetchesInFlightAreBoundedByConcurrency holds every clan
// request at the upstream until the test releases it: with more clans due
// than Concurrency, exactly Concurrency fetches are in flight at once,
// never more.
func TestUpstreamFetchesInFlightAreBoundedByConcurrency(t *testing.T) {
	const concurrency, clans = 3, 8
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, clans)
		e.trackAll(t) // the 08:00 slot; the requests are not held yet
		cfg := testConfig(e.clock, "replica-a")
		cfg.SnapshotConcurrency = concurrency
		sched, err := scheduler.New(e.clans, e.world.source, cfg)
		if err != nil {
			t.Fatal(err)
		}

		var mu sync.Mutex
		inFlight, most := 0, 0
		arrived, release := make(chan string), make(chan struct{})
		// stop lets held requests go when the test ends early (the
		// upstream server's Close waits for them).
		stop := make(chan struct{})
		t.Cleanup(func() { close(stop) })
		e.world.holdClanRequests(func(tag string) {
			mu.Lock()
			inFlight++
			most = max(most, inFlight)
			mu.Unlock()
			select {
			case arrived <- tag:
			case <-stop:
			}
			select {
			case <-release:
			case <-stop:
			}
			mu.Lock()
			inFlight--
			mu.Unlock()
		})

		e.clock.Set(twelveOhSeven)
		done := make(chan tickResult, 1)
		go func() {
			report, err := sched.Tick(context.Background())
			done <- tickResult{report, err}
		}()
		awaitRequest := func(n int) {
			t.Helper()
			select {
			case <-arrived:
			case result := <-done:
				t.Fatalf("the tick ended after %d of %d clan requests: %+v, %v", n-1, clans, result.report, result.err)
			case <-time.After(30 * time.Second):
				t.Fatalf("clan request %d of %d never reached the upstream", n, clans)
			}
		}

		// Nothing is released until Concurrency requests are held at once.
		for n := 1; n <= concurrency; n++ {
			awaitRequest(n)
		}
		// The claim loop then takes the next batch and waits for a free
		// worker. Once that batch is claimed, a scheduler with too many
		// workers has handed it out already, and its requests reach the
		// upstream in moments; a bounded Scheduler never sends them, so
		// the grace period can only catch a fault, never fail a right one.
		waitForRunningJobs(t, db, 2*concurrency)
		select {
		case tag := <-arrived:
			t.Fatalf("a request for %s started while %d were in flight, with Concurrency = %d", tag, concurrency, concurrency)
		case <-time.After(250 * time.Millisecond):
		}
		// From then on each release lets exactly one more request start.
		for n := concurrency + 1; n <= clans; n++ {
			release <- struct{}{}
			awaitRequest(n)
		}
		for range concurrency {
			release <- struct{}{}
		}
		var result tickResult
		select {
		case result = <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the tick did not finish after every request was released")
		}
		if result.err != nil || result.report.Stored != clans {
			t.Fatalf("tick = %+v, %v; want %d snapshots stored", result.report, result.err, clans)
		}
		mu.Lock()
		defer mu.Unlock()
		if most != concurrency {
			t.Fatalf("at most %d clan requests were in flight at once, want exactly Concurrency = %d", most, concurrency)
		}
	})
}

// waitForRunningJobs waits until at least count snapshot jobs are claimed
// and not finished.
func waitForRunningJobs(t *testing.T, db *store.Store, count int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	conn := storetest.SQL(t, db)
	for {
		var running int64
		if err := conn.Table("snapshot_jobs").Where("state = ?", models.JobRunning).Count(&running).Error; err != nil {
			t.Fatal(err)
		}
		if running >= count {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d snapshot jobs are claimed, want at least %d", running, count)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestUpstreamFetchesArePacedByRatePerSecond: the limiter runs on real
// time with a burst of Concurrency, so the k-th fetch of a tick cannot
// start before (k - burst) / RatePerSecond seconds have passed since the
// scheduler was built. Only a missing or too generous limiter fails this;
// a slow machine only makes the fetches later.
func TestUpstreamFetchesArePacedByRatePerSecond(t *testing.T) {
	const (
		concurrency = 2 // the burst
		perSecond   = 25
		clans       = 10 // the last fetch no earlier than 0.32 s
	)
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, clans)
		e.trackAll(t)
		cfg := testConfig(e.clock, "replica-a")
		cfg.SnapshotConcurrency, cfg.SnapshotRatePerSecond = concurrency, perSecond

		var mu sync.Mutex
		var starts []time.Duration
		begin := time.Now()
		sched, err := scheduler.New(e.clans, e.world.source, cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.world.holdClanRequests(func(string) {
			mu.Lock()
			defer mu.Unlock()
			starts = append(starts, time.Since(begin))
		})
		e.clock.Set(twelveOhSeven)
		report, err := sched.Tick(context.Background())
		if err != nil || report.Stored != clans {
			t.Fatalf("tick = %+v, %v; want %d snapshots stored", report, err, clans)
		}

		mu.Lock()
		defer mu.Unlock()
		if len(starts) != clans {
			t.Fatalf("%d clan requests reached the upstream, want %d", len(starts), clans)
		}
		slices.Sort(starts)
		for i, at := range starts {
			k := i + 1
			if k <= concurrency {
				continue
			}
			earliest := time.Duration(float64(k-concurrency) / perSecond * float64(time.Second))
			if at < earliest {
				t.Errorf("fetch %d started %s after the scheduler was built, want no earlier than %s at %d/s with a burst of %d",
					k, at, earliest, perSecond, concurrency)
			}
		}
	})
}
