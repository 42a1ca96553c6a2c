package scheduler_test

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
)

func TestTickSnapshotsEveryTrackedClanKeyedBySlot(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 3)
		e.trackAll(t) // stores the 08:00 slot from the track requests
		if report := e.tick(t); report.Stored != 0 || report.Planned != 0 {
			t.Fatalf("tick in the tracked slot = %+v, want nothing to do", report)
		}
		e.clock.Set(start.Add(2*time.Hour + 37*time.Minute)) // 12:07, inside the 12:00 slot
		report := e.tick(t)
		if report.Planned != 3 || report.Stored != 3 || report.Missed != 0 {
			t.Fatalf("tick at 12:07 = %+v, want 3 planned and stored", report)
		}
		if again := e.tick(t); again.Stored != 0 || again.Planned != 0 {
			t.Fatalf("repeated tick = %+v, want nothing more", again)
		}
		slots := []time.Time{at("2026-03-10T08:00:00Z"), at("2026-03-10T12:00:00Z")}
		for _, tag := range e.world.trackable {
			history := e.history(t, tag, models.SnapshotFourHourly, 0)
			want := []models.HistorySnapshot{}
			for _, slot := range slots {
				if n := e.world.fetchCount(tag, slot); n != 1 {
					t.Errorf("%s fetched %d times in slot %s, want 1", tag, n, slot)
				}
				want = append(want, models.SnapshotOf(e.world.servedAt(t, tag, slot), slot))
			}
			if !reflect.DeepEqual(history, want) {
				t.Errorf("history of %s is not what the world served at those slots:\n got %v\nwant %v", tag, historySlots(history), historySlots(want))
			}
		}
	})
}

func TestCatchUpAfterDowntimeTakesOnlyTheCurrentSlot(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 2)
		e.trackAll(t)
		e.clock.Set(at("2026-03-10T12:00:00Z"))
		ctx := context.Background()
		// The 12:00 slot is planned, then the process goes down before
		// running it.
		if _, err := e.clans.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, e.clock.Now(), e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		e.clock.Set(at("2026-03-12T13:10:00Z")) // two days later
		report := e.tick(t)
		if report.Missed != 2 || report.Stored != 2 || report.Planned != 2 {
			t.Fatalf("tick after downtime = %+v, want the 12:00 jobs of March 10 missed and the current slot of both clans stored", report)
		}
		for _, tag := range e.world.trackable {
			got := historySlots(e.history(t, tag, models.SnapshotFourHourly, 3))
			want := []string{"2026-03-10-08-00", "2026-03-12-12-00"}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s history after downtime = %v, want %v (nothing filled in between)", tag, got, want)
			}
		}
		clan, _ := e.clans.TrackedClan(ctx, e.world.trackable[0])
		status, err := e.clans.SnapshotJobStatus(ctx, clan.ID, models.SnapshotFourHourly, at("2026-03-10T12:00:00Z"))
		if err != nil || status.State != models.JobMissed || status.Attempts != 0 {
			t.Fatalf("job of the slot lost to downtime = %+v, %v; want missed without a try", status, err)
		}
	})
}

// TestSlotsNoSchedulerRanThroughAreRecordedMissed: every scheduler is
// down from Tuesday 09:30 to Thursday 13:10; the slots whose windows
// passed meanwhile are recorded missed (as the operations notes say of a
// window that ends without a snapshot), for the clans tracked then, and
// none is filled in.
func TestSlotsNoSchedulerRanThroughAreRecordedMissed(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 2)
		e.trackAll(t) // the 08:00 slot, at 09:30
		if report := e.tick(t); report.Missed != 0 {
			t.Fatalf("tick at 09:30 = %+v, want nothing missed", report)
		}
		late := e.world.untrackable
		e.clock.Set(at("2026-03-11T17:00:00Z")) // tracked by the operator while the schedulers are down
		if _, err := e.tracker.TrackAsOperator(ctx, late); err != nil {
			t.Fatal(err)
		}
		e.clock.Set(at("2026-03-12T13:10:00Z"))
		report := e.tick(t)
		// 12:00 on the 10th to 08:00 on the 12th: 12 slots of the two
		// clans; the late clan's 20:00 (11th) to 08:00 (12th): 4 slots.
		if report.Missed != 2*12+4 || report.Stored != 3 {
			t.Fatalf("tick after the downtime = %+v, want 28 slots missed and the current slot of the 3 clans stored", report)
		}
		for _, tag := range e.world.trackable {
			clan, _ := e.clans.TrackedClan(ctx, tag)
			for slot := at("2026-03-10T12:00:00Z"); slot.Before(at("2026-03-12T12:00:00Z")); slot = slot.Add(4 * time.Hour) {
				status, err := e.clans.SnapshotJobStatus(ctx, clan.ID, models.SnapshotFourHourly, slot)
				if err != nil || status.State != models.JobMissed || status.LastError != models.SlotNotPlannedReason {
					t.Fatalf("%s: job of the slot %s no scheduler planned = %+v, %v; want missed, not planned", tag, slot, status, err)
				}
			}
			if got := historySlots(e.history(t, tag, models.SnapshotFourHourly, 3)); !reflect.DeepEqual(got, []string{"2026-03-10-08-00", "2026-03-12-12-00"}) {
				t.Errorf("%s history after downtime = %v, want nothing filled in", tag, got)
			}
		}
		clan, _ := e.clans.TrackedClan(ctx, late)
		if _, err := e.clans.SnapshotJobStatus(ctx, clan.ID, models.SnapshotFourHourly, at("2026-03-11T12:00:00Z")); err != models.ErrNotFound {
			t.Errorf("a slot before the late clan was tracked has a job (%v), want none", err)
		}
		if status, _ := e.clans.SnapshotJobStatus(ctx, clan.ID, models.SnapshotFourHourly, at("2026-03-11T16:00:00Z")); status.State != models.JobDone {
			t.Errorf("the slot the operator's track request stored = %+v, want done", status)
		}
		if again := e.tick(t); again.Missed != 0 {
			t.Errorf("the next tick = %+v, want nothing missed again", again)
		}
	})
}

// TestAWeeklySlotWhoseWindowEndedInADowntimeIsRecordedMissed: every
// scheduler is down from Tuesday 09:30 until Tuesday 03:30 of the next
// week, half an hour after the window of Monday 23:00 ended: that weekly
// slot is recorded missed for the clan with weekly collection, as a slot
// no scheduler planned, and not planned late.
func TestAWeeklySlotWhoseWindowEndedInADowntimeIsRecordedMissed(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 2)
		e.trackAll(t)
		weeklyTag := e.world.trackable[0]
		if _, err := e.clans.SetWeekly(ctx, weeklyTag, true); err != nil {
			t.Fatal(err)
		}
		e.tick(t) // Tuesday 09:30: the schedulers' last tick before the downtime
		monday := at("2026-03-16T23:00:00Z")
		e.clock.Set(monday.Add(4*time.Hour + 30*time.Minute))
		report := e.tick(t)
		if report.Planned != 2 || report.Stored != 2 {
			t.Fatalf("tick at Tuesday 03:30 = %+v, want only the 00:00 slot of both clans planned and stored", report)
		}
		clan, _ := e.clans.TrackedClan(ctx, weeklyTag)
		status, err := e.clans.SnapshotJobStatus(ctx, clan.ID, models.SnapshotWeekly, monday)
		if err != nil || status.State != models.JobMissed || status.LastError != models.SlotNotPlannedReason {
			t.Fatalf("weekly job of Monday 23:00, whose window ended in the downtime = %+v, %v; want missed, not planned", status, err)
		}
		if got := e.history(t, weeklyTag, models.SnapshotWeekly, 7); len(got) != 0 {
			t.Fatalf("weekly history after the downtime = %v, want none", historySlots(got))
		}
	})
}

func TestFailingUpstreamThroughTheWindowRecordsAMissedSlot(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 2)
		e.trackAll(t)
		down, up := e.world.trackable[0], e.world.trackable[1]
		e.world.failTag(down, true)
		slot := at("2026-03-10T12:00:00Z")
		e.clock.Set(slot.Add(time.Minute))
		report := e.tick(t)
		if report.Stored != 1 || report.Retried != 1 {
			t.Fatalf("first tick = %+v, want one stored and one retry", report)
		}
		var tries int
		deadline := slot.Add(4 * time.Hour)
		for e.clock.Now().Add(10 * time.Minute).Before(deadline) {
			e.clock.Advance(10 * time.Minute) // BackoffMax: every retry is due by then
			report = e.tick(t)
			tries += report.Retried
			if report.Stored != 0 || report.Missed != 0 {
				t.Fatalf("tick at %s inside the window = %+v, want only retries", e.clock.Now(), report)
			}
		}
		e.clock.Set(deadline)
		report = e.tick(t)
		if report.Missed != 1 {
			t.Fatalf("tick at the window's end = %+v, want the slot of %s missed", report, down)
		}
		if tries < 20 {
			t.Errorf("the failing clan was retried %d times in 4 hours, want a retry at least every 10 minutes", tries)
		}
		ctx := context.Background()
		clan, _ := e.clans.TrackedClan(ctx, down)
		status, err := e.clans.SnapshotJobStatus(ctx, clan.ID, models.SnapshotFourHourly, slot)
		if err != nil || status.State != models.JobMissed || status.LastError == "" {
			t.Fatalf("job = %+v, %v; want missed with the upstream error kept", status, err)
		}
		if got := historySlots(e.history(t, down, models.SnapshotFourHourly, 0)); !reflect.DeepEqual(got, []string{"2026-03-10-08-00"}) {
			t.Errorf("history of the failing clan = %v, want only the track snapshot", got)
		}
		if got := historySlots(e.history(t, up, models.SnapshotFourHourly, 0)); len(got) != 3 {
			t.Errorf("history of the healthy clan = %v, want 08:00, 12:00 and 16:00", got)
		}
	})
}

func TestRetrySucceedsWithinTheWindow(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 1)
		e.trackAll(t)
		tag := e.world.trackable[0]
		e.world.failTag(tag, true)
		slot := at("2026-03-10T12:00:00Z")
		e.clock.Set(slot.Add(time.Minute))
		if report := e.tick(t); report.Retried != 1 {
			t.Fatalf("tick = %+v, want a retry", report)
		}
		e.clock.Advance(30 * time.Second)
		if report := e.tick(t); report.Retried != 0 || report.Stored != 0 {
			t.Fatalf("tick before the backoff ended = %+v, want no try", report)
		}
		e.world.failTag(tag, false)
		e.clock.Advance(time.Minute) // past BackoffMin, the first backoff's longest wait
		if report := e.tick(t); report.Stored != 1 {
			t.Fatalf("tick after the upstream came back = %+v, want the snapshot stored", report)
		}
		history := e.history(t, tag, models.SnapshotFourHourly, 0)
		if len(history) != 2 || !history[1].Slot.Equal(slot) {
			t.Fatalf("history = %v, want the retried snapshot keyed by its slot 12:00", historySlots(history))
		}
	})
}

// TestAnUpstreamsRetryAfterWaitsAtMostBackoffMax: an upstream that says
// to come back in an hour is asked again after BackoffMax (10 minutes),
// not after the hour, so a long advised wait cannot eat the slot's
// window.
func TestAnUpstreamsRetryAfterWaitsAtMostBackoffMax(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 1)
		e.trackAll(t)
		tag := e.world.trackable[0]
		var busy atomic.Bool
		busy.Store(true)
		source := ClanSourceFunc(func(ctx context.Context, tag string) (models.ClanDetails, error) {
			if busy.Load() {
				return models.ClanDetails{}, models.Unavailable("upstream", time.Hour, errors.New("in maintenance"))
			}
			return e.world.source.Clan(ctx, tag)
		})
		sched, err := scheduler.New(e.clans, source, testConfig(e.clock, "replica-r"))
		if err != nil {
			t.Fatal(err)
		}
		tick := func() scheduler.TickReport {
			t.Helper()
			report, err := sched.Tick(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return report
		}
		slot := at("2026-03-10T12:00:00Z")
		e.clock.Set(slot.Add(time.Minute))
		if report := tick(); report.Retried != 1 {
			t.Fatalf("tick = %+v, want a retry", report)
		}
		busy.Store(false)
		e.clock.Advance(10 * time.Minute)
		if report := tick(); report.Stored != 1 {
			t.Fatalf("tick BackoffMax after an advised wait of an hour = %+v, want the snapshot stored", report)
		}
		if got := historySlots(e.history(t, tag, models.SnapshotFourHourly, 0)); !reflect.DeepEqual(got, []string{"2026-03-10-08-00", "2026-03-10-12-00"}) {
			t.Fatalf("history = %v, want the 08:00 and the retried 12:00 slots", got)
		}
	})
}

func TestWeeklySnapshotsAndWindow(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 2)
		e.trackAll(t)
		weeklyTag, plainTag := e.world.trackable[0], e.world.trackable[1]
		if _, err := e.clans.SetWeekly(ctx, weeklyTag, true); err != nil {
			t.Fatal(err)
		}
		monday := at("2026-03-16T23:00:00Z")
		e.clock.Set(monday.Add(5 * time.Minute))
		report := e.tick(t)
		if report.Stored != 3 { // the 20:00 slot of both clans and one weekly
			t.Fatalf("tick on Monday 23:05 = %+v, want 3 snapshots", report)
		}
		weekly := e.history(t, weeklyTag, models.SnapshotWeekly, 0)
		if got := historySlots(weekly); !reflect.DeepEqual(got, []string{"2026-03-16-23-00"}) {
			t.Fatalf("weekly history = %v, want Monday 23:00", got)
		}
		if !reflect.DeepEqual(weekly[0], models.SnapshotOf(e.world.servedAt(t, weeklyTag, at("2026-03-16T20:00:00Z")), monday)) {
			t.Error("weekly snapshot differs from what the world served")
		}
		if _, err := e.clans.ClanHistory(ctx, plainTag, models.SnapshotWeekly, monday, monday); err != models.ErrWeeklyNotEnabled {
			t.Fatalf("weekly history of %s: %v, want ErrWeeklyNotEnabled", plainTag, err)
		}
		// Weekly collection switched on after the window (Tuesday 03:00)
		// waits for the next Monday.
		if _, err := e.clans.SetWeekly(ctx, plainTag, true); err != nil {
			t.Fatal(err)
		}
		e.clock.Set(monday.Add(4 * time.Hour))
		if report := e.tick(t); report.Stored != 2 {
			t.Fatalf("tick at Tuesday 03:00 = %+v, want only the two 00:00 snapshots", report)
		}
		if got := e.history(t, plainTag, models.SnapshotWeekly, 7); len(got) != 0 {
			t.Fatalf("weekly history after the window = %v, want none", historySlots(got))
		}
		e.clock.Set(monday.AddDate(0, 0, 7).Add(time.Minute))
		e.tick(t)
		if got := historySlots(e.history(t, plainTag, models.SnapshotWeekly, 0)); !reflect.DeepEqual(got, []string{"2026-03-23-23-00"}) {
			t.Fatalf("weekly history next Monday = %v", got)
		}
	})
}

func TestEachFetchUpdatesLegible(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 1)
		if _, err := e.tracker.TrackAsOperator(ctx, e.world.untrackable); err != nil {
			t.Fatal(err)
		}
		e.trackAll(t)
		tag := e.world.trackable[0]
		tests := []struct {
			tag         string
			description string
			before      bool
			after       bool
		}{
			{e.world.untrackable, "now with CROWNS.EXAMPLE in it", false, true},
			{tag, "the address is gone", true, false},
		}
		for _, tt := range tests {
			if status, _ := e.clans.TrackingStatus(ctx, tt.tag); !status.Active || status.Legible != tt.before {
				t.Fatalf("%s before: %+v, want legible %v", tt.tag, status, tt.before)
			}
			e.world.describe(tt.tag, tt.description)
		}
		e.clock.Set(at("2026-03-10T12:01:00Z"))
		e.tick(t)
		for _, tt := range tests {
			if status, _ := e.clans.TrackingStatus(ctx, tt.tag); !status.Active || status.Legible != tt.after || status.SnapshotCount != 2 {
				t.Fatalf("%s after a fetch of the new description: %+v, want still tracked, legible %v, 2 snapshots", tt.tag, status, tt.after)
			}
		}
	})
}

func TestTickPrunesOldHistory(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 1)
		e.trackAll(t)
		tag := e.world.trackable[0]
		clan, _ := e.clans.TrackedClan(ctx, tag)
		old := at("2025-01-06T04:00:00Z")
		if _, err := e.clans.SaveSnapshots(ctx, clan.ID, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(e.world.servedAt(t, tag, at("2026-03-10T08:00:00Z")), old)}); err != nil {
			t.Fatal(err)
		}
		report := e.tick(t)
		if report.Pruned == nil || report.Pruned.DeletedSnapshots+int64(len(report.Pruned.DroppedPartitions)) == 0 {
			t.Fatalf("tick = %+v, want the 2025-01-06 snapshot pruned (retention 400 days)", report.Pruned)
		}
		if got := historySlots(e.history(t, tag, models.SnapshotFourHourly, 365+100)); !reflect.DeepEqual(got, []string{"2026-03-10-08-00"}) {
			t.Fatalf("history after pruning = %v", got)
		}
		if again := e.tick(t); again.Pruned != nil {
			t.Fatalf("retention ran again within RetentionEvery: %+v", again.Pruned)
		}
	})
}

// TestRetentionAfterTheClockWentBack: a retention pass run while the
// clock was days ahead does not stop the next ones once the clock is put
// back: the pass runs again at once, then every RetentionEvery.
func TestRetentionAfterTheClockWentBack(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 1)
		e.clock.Set(start.Add(3 * 24 * time.Hour))
		if report := e.tick(t); report.Pruned == nil {
			t.Fatal("first tick did not prune")
		}
		e.clock.Set(start)
		if report := e.tick(t); report.Pruned == nil {
			t.Fatal("tick after the clock went back three days did not prune: retention waits for the clock to catch up")
		}
		e.clock.Advance(time.Hour)
		if report := e.tick(t); report.Pruned != nil {
			t.Fatalf("retention ran again within RetentionEvery: %+v", report.Pruned)
		}
		e.clock.Advance(scheduler.DefaultRetentionEvery)
		if report := e.tick(t); report.Pruned == nil {
			t.Fatal("tick RetentionEvery after the last pass did not prune")
		}
	})
}

// TestSlotsRecordedMissedByAClockAheadAreTakenOnceItIsSetRight: for one
// tick the clock runs eight hours ahead (a host clock in local time
// before NTP sets it right). That tick records the 12:00 slot as one no
// scheduler ran through; once the clock is set right, the mark ahead of
// it is moved back, and the 12:00 slot is taken when it comes, not left
// missed although a scheduler ran through its whole window.
func TestSlotsRecordedMissedByAClockAheadAreTakenOnceItIsSetRight(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 1)
		e.trackAll(t)
		e.tick(t) // 09:30, the 08:00 slot
		tag := e.world.trackable[0]
		e.clock.Set(start.Add(8 * time.Hour)) // 17:30 by a clock eight hours ahead
		if report := e.tick(t); report.Missed != 1 {
			t.Fatalf("tick of the clock ahead = %+v, want the 12:00 slot recorded missed", report)
		}
		e.clock.Set(start.Add(time.Minute)) // set right: 09:31
		e.tick(t)
		noon := at("2026-03-10T12:00:00Z")
		e.clock.Set(noon.Add(5 * time.Minute))
		if report := e.tick(t); report.Planned != 1 || report.Stored != 1 {
			t.Errorf("tick at 12:05 = %+v, want the 12:00 slot planned and stored", report)
		}
		clan, _ := e.clans.TrackedClan(ctx, tag)
		if status, err := e.clans.SnapshotJobStatus(ctx, clan.ID, models.SnapshotFourHourly, noon); err != nil || status.State != models.JobDone {
			t.Errorf("job of the 12:00 slot = %+v, %v; want done", status, err)
		}
		if got := historySlots(e.history(t, tag, models.SnapshotFourHourly, 0)); !reflect.DeepEqual(got, []string{"2026-03-10-08-00", "2026-03-10-12-00"}) {
			t.Errorf("history at 12:05 = %v, want the 08:00 and 12:00 slots", got)
		}
	})
}

// TestRetentionKeepsWhatTheHistoryWindowShows: with 30 days kept, a
// history answer of days=30 (today and the 30 days before, whole) still
// has every slot of its first day after the retention pass; the day
// before it is removed.
func TestRetentionKeepsWhatTheHistoryWindowShows(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 1)
		cfg := testConfig(e.clock, "replica-a")
		cfg.HistoryRetentionDays = 30
		pruning, err := scheduler.New(e.clans, e.world.source, cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.trackAll(t) // the 08:00 slot of 2026-03-10, at 09:30
		tag := e.world.trackable[0]
		clan, _ := e.clans.TrackedClan(ctx, tag)
		served := e.world.servedAt(t, tag, at("2026-03-10T08:00:00Z"))
		var old []models.HistorySnapshot
		for _, slot := range []string{"2026-02-07T20:00:00Z", "2026-02-08T00:00:00Z", "2026-02-08T04:00:00Z", "2026-02-08T08:00:00Z", "2026-02-08T12:00:00Z"} {
			old = append(old, models.SnapshotOf(served, at(slot)))
		}
		if _, err := e.clans.SaveSnapshots(ctx, clan.ID, models.SnapshotFourHourly, old); err != nil {
			t.Fatal(err)
		}
		if _, err := pruning.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		want := []string{"2026-02-08-00-00", "2026-02-08-04-00", "2026-02-08-08-00", "2026-02-08-12-00", "2026-03-10-08-00"}
		if got := historySlots(e.history(t, tag, models.SnapshotFourHourly, 30)); !reflect.DeepEqual(got, want) {
			t.Fatalf("history of days=30 after the retention pass = %v, want %v", got, want)
		}
		if got := historySlots(e.history(t, tag, models.SnapshotFourHourly, 31)); !reflect.DeepEqual(got, want) {
			t.Fatalf("history of days=31 after the retention pass = %v, want the day before the 30 removed: %v", got, want)
		}
	})
}

func at(value string) time.Time {
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		panic(err)
	}
	return t
}
