package store

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"

	"gorm.io/gorm"
)

// unplannedBatch bounds the clans one statement records a skipped slot
// for (the bound parameters of one statement).
const unplannedBatch = 1000

// unplannedSlotsTask names the periodic_tasks row of a schedule whose
// next_run_at is the first slot no scheduler has accounted for yet.
func unplannedSlotsTask(kind models.SnapshotKind) string {
	return "snapshot-slots-" + kind.String()
}

// RecordUnplannedSlots accounts for the slots of kind no scheduler planned
// because none ran during their windows (every replica down). The
// database keeps, per schedule, the first slot not yet accounted for;
// every slot from it (but none before oldest) up to before skippedBefore
// is recorded as missed for each clan tracked for the schedule since
// before that slot that has neither a job nor a snapshot of it, and the
// mark moves to accountedBefore. The first call on a database only sets
// the mark: nothing is known of the time before it; so does a call that
// finds the mark more than a period past accountedBefore (left by a clock
// that ran ahead), which also forgets the slots from skippedBefore on
// that clock recorded as not planned. Each slot is recorded
// in a transaction of its own that moves the mark past it: a long
// downtime (35 days of 4-hourly slots for 10,000 clans are two million
// rows) never holds the database, the SQLite file's one writer above all,
// for the whole catch-up, and what a failed call recorded stays recorded,
// the next call going on from there. Replicas calling it together record
// each slot once. It returns the slots recorded, with the number of clans
// each.
func (s *Store) RecordUnplannedSlots(ctx context.Context, kind models.SnapshotKind, skippedBefore, accountedBefore, oldest, now time.Time) ([]models.UnplannedSlot, error) {
	name := unplannedSlotsTask(kind)
	var marks []int64
	if err := s.session(ctx).Raw(`SELECT next_run_at FROM periodic_tasks WHERE name = ?`, name).Scan(&marks).Error; err != nil {
		return nil, fmt.Errorf("read the first unplanned %s slot: %w", kind, s.Translate(err))
	}
	if len(marks) == 0 {
		err := s.session(ctx).Exec(`INSERT INTO periodic_tasks (name, claimed_by, next_run_at) VALUES (?, '', ?)
			ON CONFLICT (name) DO NOTHING`, name, accountedBefore.Unix()).Error
		if err != nil {
			return nil, fmt.Errorf("mark the first unplanned %s slot: %w", kind, s.Translate(err))
		}
		return nil, nil
	}
	mark := marks[0]
	if ahead := time.Unix(mark, 0).Sub(accountedBefore); ahead > kind.Period() {
		// Only a clock that ran ahead sets the mark past the next slot;
		// left there, it would hide every downtime until the clock caught
		// up. Nothing is known of the time since: counting starts again.
		// What that clock recorded as not planned from skippedBefore on
		// are slots whose windows have not ended (or begun): forgotten,
		// they are planned when they come.
		var forgotten int64
		err := s.inTx(ctx, func(tx *gorm.DB) error {
			moved, err := moveUnplannedMark(tx, name, mark, accountedBefore.Unix())
			if err != nil || !moved {
				return err
			}
			forgotten, err = forgetSlotsSkippedFrom(tx, kind, skippedBefore)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("move back the first unplanned %s slot: %w", kind, s.Translate(err))
		}
		s.log.WarnContext(ctx, "the first slot not accounted for was ahead of the clock; counting missed slots starts again from now",
			"kind", kind.String(), "mark", time.Unix(mark, 0).UTC(), "ahead", ahead, "forgottenMisses", forgotten)
		return nil, nil
	}
	if mark >= accountedBefore.Unix() {
		return nil, nil
	}
	first := time.Unix(mark, 0).UTC()
	if first.Before(oldest) {
		first = kind.NextSlot(oldest.Add(-time.Second))
	}
	var recorded []models.UnplannedSlot
	var clans []trackedSince
	if first.Before(skippedBefore) {
		var err error
		if clans, err = clansTrackedFor(s.session(ctx), kind); err != nil {
			return nil, s.Translate(err)
		}
	}
	for slot := first; slot.Before(skippedBefore); slot = slot.Add(kind.Period()) {
		next := slot.Add(kind.Period()).Unix()
		var n int64
		claimed := false
		err := s.inTx(ctx, func(tx *gorm.DB) error {
			var err error
			if claimed, err = moveUnplannedMark(tx, name, mark, next); err != nil || !claimed {
				return err
			}
			var ids []int64
			for _, c := range clans {
				if !c.TrackedSince.After(slot) {
					ids = append(ids, c.ID)
				}
			}
			n, err = recordSlotSkipped(tx, kind, slot, ids, now)
			return err
		})
		if err != nil {
			return recorded, fmt.Errorf("record unplanned %s slots: %w", kind, s.Translate(err))
		}
		if !claimed {
			// Another replica moved the mark: it records the rest.
			return recorded, nil
		}
		if n > 0 {
			recorded = append(recorded, models.UnplannedSlot{Kind: kind, Slot: slot, Clans: n})
		}
		mark = next
	}
	if mark < accountedBefore.Unix() {
		if _, err := moveUnplannedMark(s.session(ctx), name, mark, accountedBefore.Unix()); err != nil {
			return recorded, fmt.Errorf("record unplanned %s slots: %w", kind, s.Translate(err))
		}
	}
	return recorded, nil
}

// moveUnplannedMark moves the mark of the schedule's task name from from
// to to, and reports whether it did: moving it from the value read
// claims the slots between, so a replica that read the same mark finds
// it moved and records nothing.
func moveUnplannedMark(tx *gorm.DB, name string, from, to int64) (bool, error) {
	moved := tx.Exec(`UPDATE periodic_tasks SET next_run_at = ? WHERE name = ? AND next_run_at = ?`, to, name, from)
	if moved.Error != nil {
		return false, fmt.Errorf("move the first unplanned slot of %s: %w", name, moved.Error)
	}
	return moved.RowsAffected > 0, nil
}

// forgetSlotsSkippedFrom deletes the records of slots of kind from from
// on that were recorded missed as not planned, and returns how many it
// deleted: a clock that ran ahead recorded them before their windows
// ended.
func forgetSlotsSkippedFrom(tx *gorm.DB, kind models.SnapshotKind, from time.Time) (int64, error) {
	res := tx.Exec(`DELETE FROM snapshot_jobs WHERE kind = ? AND slot >= ? AND state = ? AND last_error = ?`,
		kind, from.Unix(), models.JobMissed, models.SlotNotPlannedReason)
	if res.Error != nil {
		return 0, fmt.Errorf("forget the %s slots from %s recorded missed ahead of the clock: %w", kind, models.HistoryKey(from), res.Error)
	}
	return res.RowsAffected, nil
}

// trackedSince is a clan tracked now and since when.
type trackedSince struct {
	ID           int64
	TrackedSince time.Time
}

// clansTrackedFor lists the clans tracked now for kind's schedule.
func clansTrackedFor(tx *gorm.DB, kind models.SnapshotKind) ([]trackedSince, error) {
	filter := ``
	if kind == models.SnapshotWeekly {
		filter = ` AND weekly`
	}
	var clans []trackedSince
	if err := tx.Raw(`SELECT id, tracked_since FROM tracked_clans WHERE active` + filter + ` ORDER BY id`).Scan(&clans).Error; err != nil {
		return nil, fmt.Errorf("list clans tracked for %s snapshots: %w", kind, err)
	}
	return clans, nil
}

// recordSlotSkipped records slot as missed for the clans of ids that have
// neither a job nor a snapshot of it, and returns how many it recorded.
func recordSlotSkipped(tx *gorm.DB, kind models.SnapshotKind, slot time.Time, ids []int64, now time.Time) (int64, error) {
	var total int64
	for len(ids) > 0 {
		batch := ids[:min(len(ids), unplannedBatch)]
		ids = ids[len(batch):]
		res := tx.Exec(`INSERT INTO snapshot_jobs (clan_id, kind, slot, state, attempts, due_at, deadline_at, finished_at, last_error)
			SELECT c.id, ?, ?, ?, 0, ?, ?, ?, ? FROM tracked_clans c
			WHERE c.id IN ? AND NOT EXISTS (SELECT 1 FROM clan_snapshots s WHERE s.clan_id = c.id AND s.kind = ? AND s.slot = ?)
			ON CONFLICT (clan_id, kind, slot) DO NOTHING`,
			kind, slot.Unix(), models.JobMissed, slot.UnixMilli(), slot.Add(kind.Window()).UnixMilli(), now.UnixMilli(),
			models.SlotNotPlannedReason, batch, kind, slot.Unix())
		if res.Error != nil {
			return total, fmt.Errorf("record the %s slot %s skipped: %w", kind, models.HistoryKey(slot), res.Error)
		}
		total += res.RowsAffected
	}
	return total, nil
}
