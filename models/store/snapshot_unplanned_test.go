package store_test

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"

	"gorm.io/gorm"
)

// TestUnplannedSlotsAreRecordedSlotBySlot: the slots of a downtime are
// recorded one transaction per slot, the mark moving with each, so a
// catch-up never holds the database for the whole downtime (two million
// rows for 35 days of 10,000 clans), and what a call recorded before it
// failed stays recorded: the next call goes on from the slot that failed
// and records nothing twice.
func TestUnplannedSlotsAreRecordedSlotBySlot(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		ids := []int64{trackFixture(t, clans, "2CCCP", trackedAt).Clan.ID, trackFixture(t, clans, "8QJVQ", trackedAt).Clan.ID}
		kind := models.SnapshotFourHourly
		record := func(now time.Time) ([]models.UnplannedSlot, error) {
			slot := kind.SlotAt(now)
			return clans.RecordUnplannedSlots(ctx, kind, slot, slot.Add(kind.Period()), now.Add(-35*24*time.Hour), now)
		}
		if recorded, err := record(trackedAt); err != nil || len(recorded) != 0 {
			t.Fatalf("first call = %v, %v; want the mark set and nothing recorded", recorded, err)
		}

		// Down from the 10th 09:30 to the 11th 09:30: the slots from the
		// 10th 12:00 to the 11th 04:00 were planned by no scheduler. The
		// database refuses the 11th 00:00's records once.
		failing := at("2026-03-11T00:00:00Z")
		raw := storetest.SQL(t, clans)
		switch clans.Dialect() {
		case store.DialectPostgres:
			mustExec(t, raw, `CREATE FUNCTION refuse_slot() RETURNS trigger LANGUAGE plpgsql AS $$
				BEGIN IF NEW.slot = `+strconv.FormatInt(failing.Unix(), 10)+` THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`)
			mustExec(t, raw, `CREATE TRIGGER refuse_slot BEFORE INSERT ON snapshot_jobs FOR EACH ROW EXECUTE FUNCTION refuse_slot()`)
		default:
			mustExec(t, raw, `CREATE TRIGGER refuse_slot BEFORE INSERT ON snapshot_jobs WHEN NEW.slot = `+strconv.FormatInt(failing.Unix(), 10)+`
				BEGIN SELECT RAISE(ABORT, 'refused'); END`)
		}
		back := at("2026-03-11T09:30:00Z")
		if _, err := record(back); err == nil {
			t.Fatal("the call whose records the database refused succeeded")
		}
		for _, id := range ids {
			for _, slot := range []string{"2026-03-10T12:00:00Z", "2026-03-10T16:00:00Z", "2026-03-10T20:00:00Z"} {
				if status := jobState(t, clans, id, kind, at(slot)); status.State != models.JobMissed {
					t.Fatalf("clan %d, slot %s recorded before the failure: %+v, want missed", id, slot, status)
				}
			}
			if _, err := clans.SnapshotJobStatus(ctx, id, kind, failing); !errors.Is(err, models.ErrNotFound) {
				t.Fatalf("clan %d, the slot that failed: %v, want no job", id, err)
			}
		}

		if clans.Dialect() == store.DialectPostgres {
			mustExec(t, raw, `DROP TRIGGER refuse_slot ON snapshot_jobs`)
		} else {
			mustExec(t, raw, `DROP TRIGGER refuse_slot`)
		}
		recorded, err := record(back)
		want := []models.UnplannedSlot{{Kind: kind, Slot: failing, Clans: 2}, {Kind: kind, Slot: at("2026-03-11T04:00:00Z"), Clans: 2}}
		if err != nil || !reflect.DeepEqual(recorded, want) {
			t.Fatalf("the call after the failure = %v, %v; want %v", recorded, err, want)
		}
		if again, err := record(back.Add(time.Minute)); err != nil || len(again) != 0 {
			t.Fatalf("a call in the same slot = %v, %v; want nothing recorded again", again, err)
		}
	})
}

// TestUnplannedSlotsOlderThanTheJobRetentionAreNotRecorded: after a
// downtime longer than the retention of finished jobs, only the slots
// from the oldest kept on are recorded missed: records of older ones
// would be pruned at once.
func TestUnplannedSlotsOlderThanTheJobRetentionAreNotRecorded(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		id := trackFixture(t, clans, "2CCCP", trackedAt).Clan.ID
		kind := models.SnapshotFourHourly
		const jobRetention = 24 * time.Hour
		record := func(now time.Time) ([]models.UnplannedSlot, error) {
			slot := kind.SlotAt(now)
			return clans.RecordUnplannedSlots(ctx, kind, slot, slot.Add(kind.Period()), now.Add(-jobRetention), now)
		}
		if recorded, err := record(trackedAt); err != nil || len(recorded) != 0 {
			t.Fatalf("first call = %v, %v; want the mark set and nothing recorded", recorded, err)
		}
		// Down two days, from the 10th 09:30 to the 12th 09:30: the slots
		// from the 11th 12:00 (the first after the 11th 09:30) to the 12th
		// 04:00 are recorded.
		recorded, err := record(at("2026-03-12T09:30:00Z"))
		if err != nil {
			t.Fatal(err)
		}
		var slots []string
		for _, u := range recorded {
			slots = append(slots, models.HistoryKey(u.Slot))
		}
		want := []string{"2026-03-11-12-00", "2026-03-11-16-00", "2026-03-11-20-00", "2026-03-12-00-00", "2026-03-12-04-00"}
		if !reflect.DeepEqual(slots, want) {
			t.Fatalf("slots recorded missed = %v, want %v", slots, want)
		}
		if _, err := clans.SnapshotJobStatus(ctx, id, kind, at("2026-03-11T08:00:00Z")); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("a slot older than the job retention: %v, want no record", err)
		}
	})
}

// mustExec runs a statement on a test's own connection.
func mustExec(t *testing.T, db *gorm.DB, statement string) {
	t.Helper()
	if err := db.Exec(statement).Error; err != nil {
		t.Fatalf("%s: %v", statement, err)
	}
}

// TestAMarkAheadOfTheClockStartsCountingAgain: a mark more than a period
// past the clock (left by a clock that ran days ahead and was set right)
// is moved back to now, so that the next downtime is recorded rather than
// hidden until the clock catches up; the time in between is unknown and
// nothing is recorded for it.
func TestAMarkAheadOfTheClockStartsCountingAgain(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		id := trackFixture(t, clans, "2CCCP", trackedAt).Clan.ID
		kind := models.SnapshotFourHourly
		record := func(now time.Time) ([]models.UnplannedSlot, error) {
			slot := kind.SlotAt(now)
			return clans.RecordUnplannedSlots(ctx, kind, slot, slot.Add(kind.Period()), now.Add(-35*24*time.Hour), now)
		}
		ahead := trackedAt.Add(72 * time.Hour)
		if recorded, err := record(ahead); err != nil || len(recorded) != 0 {
			t.Fatalf("first call, clock ahead = %v, %v; want the mark set", recorded, err)
		}
		if recorded, err := record(trackedAt); err != nil || len(recorded) != 0 {
			t.Fatalf("the clock set right = %v, %v; want the mark moved back, nothing recorded", recorded, err)
		}
		// Down for a day from the clock set right: its slots are recorded.
		back := trackedAt.Add(24 * time.Hour)
		recorded, err := record(back)
		if err != nil || len(recorded) == 0 {
			t.Fatalf("after a day's downtime = %v, %v; want its slots recorded", recorded, err)
		}
		first := kind.SlotAt(trackedAt).Add(kind.Period())
		if recorded[0].Slot != first {
			t.Errorf("first slot recorded %s, want %s", recorded[0].Slot, first)
		}
		if status := jobState(t, clans, id, kind, first); status.State != models.JobMissed {
			t.Errorf("slot %s: %+v, want missed", first, status)
		}
	})
}
