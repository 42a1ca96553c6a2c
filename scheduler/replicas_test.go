package scheduler_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
)

// openReplicas opens n stores on one fresh database, as n processes would.
func openReplicas(t *testing.T, engine store.Dialect, n int) []*store.Store {
	t.Helper()
	cfg := storetest.Config(t, engine)
	ctx := context.Background()
	stores := make([]*store.Store, n)
	for i := range stores {
		db, err := store.Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		stores[i] = db
	}
	return stores
}

func TestTwoReplicasTakeEachClanSlotExactlyOnce(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			stores := openReplicas(t, engine, 2)
			e := newEnv(t, stores[0], 40)
			e.trackAll(t)
			other, err := scheduler.New(stores[1], e.world.source, testConfig(e.clock, "replica-b"))
			if err != nil {
				t.Fatal(err)
			}
			replicas := []*scheduler.Scheduler{e.scheduler, other}
			for _, slot := range []time.Time{at("2026-03-10T12:00:00Z"), at("2026-03-10T16:00:00Z")} {
				e.clock.Set(slot.Add(time.Minute))
				reports := make([]scheduler.TickReport, len(replicas))
				errs := make([]error, len(replicas))
				var wg sync.WaitGroup
				for i, replica := range replicas {
					wg.Add(1)
					go func() {
						defer wg.Done()
						reports[i], errs[i] = replica.Tick(context.Background())
					}()
				}
				wg.Wait()
				stored := 0
				for i := range replicas {
					if errs[i] != nil {
						t.Fatalf("replica %d: %v", i, errs[i])
					}
					stored += reports[i].Stored
				}
				if stored != 40 {
					t.Errorf("slot %s: replicas stored %d snapshots in all (%+v, %+v), want 40", slot, stored, reports[0], reports[1])
				}
				for _, tag := range e.world.trackable {
					if n := e.world.fetchCount(tag, slot); n != 1 {
						t.Errorf("slot %s: %s fetched %d times, want exactly 1", slot, tag, n)
					}
					history := e.history(t, tag, models.SnapshotFourHourly, 0)
					if last := history[len(history)-1]; !last.Slot.Equal(slot) {
						t.Errorf("slot %s: %s has no snapshot for it (last %s)", slot, tag, last.Slot)
					}
				}
			}
		})
	}
}

func TestCrashedClaimantsJobIsTakenOverAfterItsLease(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 3)
		e.trackAll(t)
		slot := at("2026-03-10T12:00:00Z")
		e.clock.Set(slot.Add(time.Minute))
		if _, err := e.clans.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, slot, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		crashed, ok, err := e.clans.ClaimSnapshotJob(ctx, "crashed-replica", e.clock.Now(), 2*time.Minute)
		if err != nil || !ok {
			t.Fatalf("claim = %v, %v", ok, err)
		}
		if report := e.tick(t); report.Stored != 2 {
			t.Fatalf("tick during the crashed lease = %+v, want the 2 other clans", report)
		}
		if n := e.world.fetchCount(crashed.Tag, slot); n != 0 {
			t.Fatalf("the leased job of %s was fetched %d times during its lease", crashed.Tag, n)
		}
		e.clock.Advance(2 * time.Minute)
		if report := e.tick(t); report.Stored != 1 {
			t.Fatalf("tick after the lease = %+v, want the crashed job taken over", report)
		}
		if n := e.world.fetchCount(crashed.Tag, slot); n != 1 {
			t.Fatalf("%s fetched %d times, want 1", crashed.Tag, n)
		}
		status, _ := e.clans.SnapshotJobStatus(ctx, crashed.ClanID, models.SnapshotFourHourly, slot)
		if status.State != models.JobDone || status.Attempts != 2 {
			t.Fatalf("job = %+v, want done on the second attempt", status)
		}
	})
}

func TestRunStopsAndGivesBackItsJobWhenCancelled(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 1)
		e.trackAll(t)
		slot := at("2026-03-10T12:00:00Z")
		e.clock.Set(slot.Add(time.Minute))
		started := make(chan string, 1)
		blocking := ClanSourceFunc(func(ctx context.Context, tag string) (models.ClanDetails, error) {
			select {
			case started <- tag:
			default:
			}
			<-ctx.Done()
			return models.ClanDetails{}, ctx.Err()
		})
		cfg := testConfig(e.clock, "stopping-replica")
		cfg.TickInterval = time.Hour
		s, err := scheduler.New(e.clans, blocking, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		tag := <-started
		cancel()
		expectRunReturnsNil(t, done)
		clan, _ := e.clans.TrackedClan(context.Background(), tag)
		status, err := e.clans.SnapshotJobStatus(context.Background(), clan.ID, models.SnapshotFourHourly, slot)
		if err != nil || status.State != models.JobPending || status.LeaseOwner != "" || status.DueAt > e.clock.Now().UnixMilli() {
			t.Fatalf("job after shutdown = %+v, %v; want pending, unleased, due at once", status, err)
		}
		if report := e.tick(t); report.Stored != 1 {
			t.Fatalf("another replica's tick = %+v, want the given-back job stored", report)
		}
	})
}

func TestNewRejectsBadConfig(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	clans := db
	source := ClanSourceFunc(func(context.Context, string) (models.ClanDetails, error) { return models.ClanDetails{}, nil })
	tests := []struct {
		name  string
		edit  func(*scheduler.Config)
		field string // the field the problem names
	}{
		{"no address", func(c *scheduler.Config) { c.TrackAddress = " " }, "TrackAddress"},
		{"lease shorter than a fetch", func(c *scheduler.Config) { c.Lease = time.Second }, "UpstreamTimeout"},
		{"lease no longer than a fetch", func(c *scheduler.Config) { c.UpstreamTimeout = c.Lease }, "UpstreamTimeout"},
		{"backoff bounds reversed", func(c *scheduler.Config) { c.BackoffMax = time.Second }, "BackoffMax"},
		{"negative rate", func(c *scheduler.Config) { c.SnapshotRatePerSecond = -1 }, "SnapshotRatePerSecond"},
		// 64 workers at one fetch a second: a claimed job may wait two
		// minutes for its turn, past its lease.
		{"claimed jobs waiting past their lease", func(c *scheduler.Config) { c.SnapshotConcurrency, c.SnapshotRatePerSecond = 64, 1 }, "SnapshotConcurrency"},
		// 28 workers at one a second: 28 s, past (2m - 10s) / 4 = 27.5 s.
		{"claimed jobs waiting just past the bound", func(c *scheduler.Config) {
			c.SnapshotConcurrency, c.SnapshotRatePerSecond, c.Lease, c.UpstreamTimeout = 28, 1, 2*time.Minute, 10*time.Second
		}, "SnapshotConcurrency"},
	}
	for _, tt := range tests {
		cfg := testConfig(models.SystemClock{}, "x")
		tt.edit(&cfg)
		_, err := scheduler.New(clans, source, cfg)
		var problems scheduler.ConfigProblems
		if !errors.As(err, &problems) {
			t.Errorf("%s: New = %v, want the configuration's problems", tt.name, err)
			continue
		}
		if !slices.ContainsFunc(problems, func(p scheduler.ConfigProblem) bool { return p.Field == tt.field }) {
			t.Errorf("%s: problems %q name no %s", tt.name, problems.Error(), tt.field)
		}
	}
	if _, err := scheduler.New(clans, source, scheduler.Config{TrackAddress: "crowns.example"}); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
	// 27 workers at one a second: 27 s, within (2m - 10s) / 4; 55 at two
	// a second: 27.5 s, the bound itself.
	for _, fits := range []struct {
		concurrency int
		rate        float64
	}{{27, 1}, {55, 2}} {
		cfg := scheduler.Config{TrackAddress: "crowns.example", SnapshotConcurrency: fits.concurrency, SnapshotRatePerSecond: fits.rate,
			Lease: 2 * time.Minute, UpstreamTimeout: 10 * time.Second}
		if _, err := scheduler.New(clans, source, cfg); err != nil {
			t.Errorf("%d workers at %v fetches a second rejected: %v", fits.concurrency, fits.rate, err)
		}
	}
}
