package models

import (
	"context"
	"fmt"
	"time"
)

// HistoryFingerprint stands for everything a history answer of (tag,
// kind, from, to) is made of, in a few numbers: the clan's row and its
// tracked and weekly flags (which decide the refusals ErrNotTracked and
// ErrWeeklyNotEnabled), and the count, first, last and sum of the slots
// of its snapshots of that kind in the window. Two fingerprints are
// compared with ==; equal ones mean the answer read with the first is
// the answer now.
//
// The slots are enough because a snapshot row never changes: it is
// inserted once (a second write of its (clan, kind, slot) does nothing)
// and leaves only through retention, which deletes the oldest slots
// first; the player dictionary it refers to is immutable too. Inserts
// alone or deletes alone move the count. Retention deleting from the
// window (its period shorter than the window) always takes the first
// slot, so the two together go unseen only when that very slot is
// imported again, older than the retention cutoff, within one cache
// lifetime, and the sum comes out the same.
type HistoryFingerprint struct {
	// clanID is 0 for a clan never tracked.
	clanID         int64
	active, weekly bool
	snapshots      int64
	firstSlot      int64
	lastSlot       int64
	slotSum        int64
}

// ClanHistoryFingerprint returns the fingerprint of the history answer
// of (tag, kind, from, to) as the database holds it now, refusals
// included (it is no error that the clan is not tracked), without reading
// the snapshots themselves: one query over the clan's unique tag and the
// (clan, kind, slot) primary key of clan_snapshots, whose slot range
// prunes the monthly partitions on PostgreSQL. It is what ClanHistory
// would return with the history read now.
func (c *ClanStore) ClanHistoryFingerprint(ctx context.Context, tag string, kind SnapshotKind, from, to time.Time) (HistoryFingerprint, error) {
	var rows []struct {
		ClanID    int64
		Active    bool
		Weekly    bool
		Snapshots int64
		FirstSlot int64
		LastSlot  int64
		SlotSum   int64
	}
	err := c.store.DB(ctx).Raw(`SELECT c.id AS clan_id, c.active, c.weekly, COUNT(s.slot) AS snapshots,
			COALESCE(MIN(s.slot), 0) AS first_slot, COALESCE(MAX(s.slot), 0) AS last_slot,
			COALESCE(CAST(SUM(s.slot) AS BIGINT), 0) AS slot_sum
		FROM tracked_clans c LEFT JOIN clan_snapshots s
			ON s.clan_id = c.id AND s.kind = ? AND s.slot >= ? AND s.slot <= ?
		WHERE c.tag = ? GROUP BY c.id, c.active, c.weekly`, kind, from.Unix(), to.Unix(), tag).Scan(&rows).Error
	if err != nil {
		return HistoryFingerprint{}, fmt.Errorf("read the %s history fingerprint of %s: %w", kind, tag, c.store.Translate(err))
	}
	if len(rows) == 0 {
		return HistoryFingerprint{}, nil
	}
	row := rows[0]
	return HistoryFingerprint{
		clanID: row.ClanID, active: row.Active, weekly: row.Weekly,
		snapshots: row.Snapshots, firstSlot: row.FirstSlot, lastSlot: row.LastSlot, slotSum: row.SlotSum,
	}, nil
}

// clanFingerprint starts the fingerprint of a clan's history answer, to
// which addSlot adds the snapshots read.
func clanFingerprint(clanID int64, active, weekly bool) HistoryFingerprint {
	return HistoryFingerprint{clanID: clanID, active: active, weekly: weekly}
}

// addSlot counts a snapshot's slot into the fingerprint.
func (f *HistoryFingerprint) addSlot(slot int64) {
	if f.snapshots == 0 || slot < f.firstSlot {
		f.firstSlot = slot
	}
	if f.snapshots == 0 || slot > f.lastSlot {
		f.lastSlot = slot
	}
	f.snapshots++
	f.slotSum += slot
}
