package scheduler_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/internal/metricstest"
	"github.com/crownsdev/crowns/internal/outage/outagetest"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
)

// errDatabaseGone is the failure a faultyStore gives.
var errDatabaseGone = errors.New("database gone")

// faultyStore is the real store with chosen statements failing, as they
// do when the database goes away in the middle of a tick.
type faultyStore struct {
	*store.Store
	failClaims, failPrunes, failPlans, failMisses, failExpires bool
}

func (f *faultyStore) ExpireSnapshotJobs(ctx context.Context, now time.Time) ([]models.MissedJob, error) {
	if f.failExpires {
		return nil, errDatabaseGone
	}
	return f.Store.ExpireSnapshotJobs(ctx, now)
}

func (f *faultyStore) MissSnapshotJob(ctx context.Context, job models.SnapshotJob, now time.Time, reason string) error {
	if f.failMisses {
		return errDatabaseGone
	}
	return f.Store.MissSnapshotJob(ctx, job, now, reason)
}

func (f *faultyStore) PlanSnapshotJobs(ctx context.Context, kind models.SnapshotKind, slot, now time.Time) (int64, error) {
	if f.failPlans {
		return 0, errDatabaseGone
	}
	return f.Store.PlanSnapshotJobs(ctx, kind, slot, now)
}

func (f *faultyStore) ClaimSnapshotJobs(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]models.SnapshotJob, error) {
	if f.failClaims {
		return nil, errDatabaseGone
	}
	return f.Store.ClaimSnapshotJobs(ctx, owner, now, lease, limit)
}

func (f *faultyStore) PruneHistory(ctx context.Context, snapshotsBefore, jobsBefore time.Time) (models.PruneReport, error) {
	if f.failPrunes {
		return models.PruneReport{}, errDatabaseGone
	}
	return f.Store.PruneHistory(ctx, snapshotsBefore, jobsBefore)
}

// errorLines are the lines at ERROR a Recorder holds.
func errorLines(logs *outagetest.Recorder) []string {
	var lines []string
	for _, line := range logs.Lines() {
		if strings.HasPrefix(line, "level=ERROR") {
			lines = append(lines, line)
		}
	}
	return lines
}

// TestTickFailsWhenTheDatabaseFailsMidTick: a tick whose expiry of ended
// jobs, claim of due jobs, or retention pass fails returns the error (Run logs it as
// package outage does: once when ticks start failing, a reminder a
// minute) rather than logging it itself at every tick, or reporting a
// tick that did its work; the jobs it could not claim are run by the next
// tick, and the retention pass it could not do is tried again at once.
func TestTickFailsWhenTheDatabaseFailsMidTick(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 2)
		e.trackAll(t)
		faulty := &faultyStore{Store: db, failExpires: true}
		logs := outagetest.New("", func() {})
		cfg := testConfig(e.clock, "replica-f")
		cfg.Logger = logs.Logger()
		sched, err := scheduler.New(faulty, e.world.source, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		e.clock.Set(twelveOhSeven)
		if report, err := sched.Tick(ctx); !errors.Is(err, errDatabaseGone) || report.Stored != 0 {
			t.Fatalf("tick whose expiry of ended jobs fails = %+v, %v; want the expiry's error", report, err)
		}
		faulty.failExpires, faulty.failClaims = false, true
		for range 3 {
			if report, err := sched.Tick(ctx); !errors.Is(err, errDatabaseGone) || report.Stored != 0 {
				t.Fatalf("tick whose claims fail = %+v, %v; want the claim's error", report, err)
			}
		}
		if lines := errorLines(logs); len(lines) != 0 {
			t.Fatalf("failing ticks logged themselves, want the error left to Run:\n%s", strings.Join(lines, "\n"))
		}
		faulty.failClaims, faulty.failPrunes = false, true
		for range 3 {
			report, err := sched.Tick(ctx)
			if !errors.Is(err, errDatabaseGone) {
				t.Fatalf("tick whose retention pass fails = %+v, %v; want the pass's error", report, err)
			}
			if report.Pruned != nil {
				t.Fatalf("tick whose retention pass failed reports it done: %+v", report.Pruned)
			}
		}
		if lines := errorLines(logs); len(lines) != 0 {
			t.Fatalf("failing ticks logged themselves, want the error left to Run:\n%s", strings.Join(lines, "\n"))
		}
		faulty.failPrunes = false
		for _, tag := range e.world.trackable {
			if got := historySlots(e.history(t, tag, models.SnapshotFourHourly, 0)); len(got) != 2 {
				t.Fatalf("%s history after the claims came back = %v, want the 08:00 and 12:00 slots", tag, got)
			}
		}
		if report, err := sched.Tick(ctx); err != nil || report.Pruned == nil {
			t.Fatalf("tick once the database works = %+v, %v; want the retention pass done", report, err)
		}
	})
}

// TestASlotWhosePlanningFailedIsRecordedMissed: the database fails as the
// first tick of the 12:00 slot plans it, and no tick runs again until the
// slot's window has ended (the database, or the process, was down): the
// slot is recorded missed for every clan when the scheduler is back, as a
// slot no scheduler planned, not forgotten.
func TestASlotWhosePlanningFailedIsRecordedMissed(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 2)
		e.trackAll(t) // the 08:00 slot, at 09:30
		e.tick(t)
		faulty := &faultyStore{Store: db, failPlans: true}
		sched, err := scheduler.New(faulty, e.world.source, testConfig(e.clock, "replica-f"))
		if err != nil {
			t.Fatal(err)
		}
		e.clock.Set(twelveOhSeven)
		if _, err := sched.Tick(ctx); !errors.Is(err, errDatabaseGone) {
			t.Fatalf("tick whose planning fails: %v, want the planning's error", err)
		}
		faulty.failPlans = false
		e.clock.Set(at("2026-03-10T16:30:00Z"))
		report, err := sched.Tick(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if report.Missed != 2 || report.Stored != 2 {
			t.Fatalf("tick after the 12:00 window = %+v, want the 12:00 slot of both clans missed and the 16:00 one stored", report)
		}
		for _, tag := range e.world.trackable {
			clan, _ := e.clans.TrackedClan(ctx, tag)
			status, err := e.clans.SnapshotJobStatus(ctx, clan.ID, models.SnapshotFourHourly, at("2026-03-10T12:00:00Z"))
			if err != nil || status.State != models.JobMissed {
				t.Fatalf("%s: job of the 12:00 slot = %+v, %v; want it recorded missed", tag, status, err)
			}
		}
	})
}

// TestAGoneClanWhoseMissCannotBeWrittenIsCountedOnce: the upstream no
// longer knows a clan, and the write that records its slot missed fails:
// the job is left to its lease, counted failed, not missed; once the
// lease has ended the next try records it missed, counted then, once.
func TestAGoneClanWhoseMissCannotBeWrittenIsCountedOnce(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 1)
		e.trackAll(t)
		gone := e.world.trackable[0]
		source := ClanSourceFunc(func(ctx context.Context, tag string) (models.ClanDetails, error) {
			if tag == gone {
				return models.ClanDetails{}, models.ErrNotFound
			}
			return e.world.source.Clan(ctx, tag)
		})
		faulty := &faultyStore{Store: db, failMisses: true}
		reg := prometheus.NewRegistry()
		cfg := testConfig(e.clock, "replica-f")
		cfg.Metrics = reg
		sched, err := scheduler.New(faulty, source, cfg)
		if err != nil {
			t.Fatal(err)
		}
		slots := func(state string) float64 {
			return metricstest.Gather(t, reg).Value("crowns_scheduler_slots_total", map[string]string{"kind": "4-hourly", "state": state})
		}
		e.clock.Set(twelveOhSeven)
		if _, err := sched.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		if missed, failed := slots("missed"), slots("failed"); missed != 0 || failed != 1 {
			t.Fatalf("after a miss that could not be written: %v missed, %v failed; want 0 and 1", missed, failed)
		}
		faulty.failMisses = false
		e.clock.Advance(cfg.Lease + time.Second)
		if _, err := sched.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		clan, _ := e.clans.TrackedClan(ctx, gone)
		status, err := e.clans.SnapshotJobStatus(ctx, clan.ID, models.SnapshotFourHourly, at("2026-03-10T12:00:00Z"))
		if err != nil || status.State != models.JobMissed {
			t.Fatalf("job of the gone clan after its lease = %+v, %v; want missed", status, err)
		}
		if missed := slots("missed"); missed != 1 {
			t.Fatalf("the gone clan's slot counted missed %v times, want once", missed)
		}
	})
}
