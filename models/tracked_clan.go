package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Who started tracking a clan (tracked_clans.tracked_by).
const (
	// TrackedByKey: a developer key's track request, after the address
	// check; TrackedByKeyID names the key.
	TrackedByKey = "key"
	// TrackedByOperator: the operator's `crowns clans track`, which
	// overrides the address check (Override is set).
	TrackedByOperator = "operator"
)

// TrackedClan is a row of tracked_clans.
type TrackedClan struct {
	ID     int64
	Tag    string
	Name   string
	Active bool
	Weekly bool
	// Legible: the description contained the tracking address at the last
	// check (LastCheckedAt).
	Legible bool
	// Override: tracking was started by the operator, without the address
	// check.
	Override       bool
	TrackedSince   time.Time
	TrackedBy      string
	TrackedByKeyID *int64
	LastCheckedAt  *time.Time
	UntrackedAt    *time.Time
}

// TrackRequest asks to start tracking a clan, with the data just fetched
// from the upstream.
type TrackRequest struct {
	// Tag is the normalized tag the caller asked for.
	Tag  string
	Clan ClanDetails
	// Legible: the description contains the tracking address.
	Legible bool
	// By is TrackedByKey (with KeyID) or TrackedByOperator.
	By    string
	KeyID int64
	Now   time.Time
}

// TrackResult says what a track request did.
type TrackResult struct {
	Clan TrackedClan
	// AlreadyTracked: the clan was tracked before; nothing about its
	// tracking changed.
	AlreadyTracked bool
	// SnapshotStored: the current 4-hourly slot's snapshot was stored from
	// the request's data (false when that slot already had one).
	SnapshotStored bool
}

const trackedClanColumns = `id, tag, name, active, weekly, legible, override, tracked_since,
	tracked_by, tracked_by_key_id, last_checked_at, untracked_at`

// Track starts tracking a clan, or restarts it after an untrack (history
// kept, tracked_since and tracked_by renewed), records the check of its
// description, and stores the snapshot of the current 4-hourly slot from
// the data just fetched, marking that slot's job done. Tracking an
// already tracked clan duplicates nothing.
func (c *ClanStore) Track(ctx context.Context, req TrackRequest) (TrackResult, error) {
	if req.By != TrackedByKey && req.By != TrackedByOperator {
		return TrackResult{}, fmt.Errorf("track %s: unknown requester kind %q", req.Tag, req.By)
	}
	now := req.Now.UTC()
	slot := SnapshotFourHourly.SlotAt(now)
	var keyID *int64
	if req.By == TrackedByKey {
		keyID = &req.KeyID
	}
	override := req.By == TrackedByOperator
	snapshot := SnapshotOf(req.Clan, slot)
	// The snapshot row is prepared before the transaction; its clan id is
	// filled in once known.
	row, err := c.encodeSnapshot(ctx, 0, SnapshotFourHourly, snapshot)
	if err != nil {
		return TrackResult{}, err
	}
	var result TrackResult
	err = c.inTx(ctx, func(tx *gorm.DB) error {
		inserted := tx.Exec(`INSERT INTO tracked_clans (tag, name, active, legible, override, tracked_since, tracked_by, tracked_by_key_id, last_checked_at)
			VALUES (?, ?, TRUE, ?, ?, ?, ?, ?, ?) ON CONFLICT (tag) DO NOTHING`,
			req.Tag, req.Clan.Name, req.Legible, override, now, req.By, keyID, now)
		if inserted.Error != nil {
			return fmt.Errorf("insert tracked clan: %w", inserted.Error)
		}
		clan, err := trackedClanByTag(tx, req.Tag, c.forUpdate())
		if err != nil {
			return err
		}
		switch {
		case inserted.RowsAffected == 1:
		case clan.Active:
			result.AlreadyTracked = true
		default:
			if err := tx.Exec(`UPDATE tracked_clans SET active = TRUE, override = ?, tracked_since = ?, tracked_by = ?,
				tracked_by_key_id = ?, untracked_at = NULL WHERE id = ?`,
				override, now, req.By, keyID, clan.ID).Error; err != nil {
				return fmt.Errorf("restart tracking: %w", err)
			}
		}
		if err := recordCheck(tx, clan.ID, req.Clan.Name, req.Legible, now); err != nil {
			return err
		}
		row.ClanID = clan.ID
		if result.SnapshotStored, err = insertSnapshot(tx, row); err != nil {
			return err
		}
		if err := markSlotTaken(tx, clan.ID, SnapshotFourHourly, slot, now); err != nil {
			return err
		}
		result.Clan, err = trackedClanByTag(tx, req.Tag, "")
		return err
	})
	return result, err
}

// recordCheck notes a fresh look at the clan's description.
func recordCheck(tx *gorm.DB, clanID int64, name string, legible bool, now time.Time) error {
	err := tx.Exec(`UPDATE tracked_clans SET name = ?, legible = ?, last_checked_at = ? WHERE id = ?`,
		name, legible, now, clanID).Error
	if err != nil {
		return fmt.Errorf("record clan check: %w", err)
	}
	return nil
}

// Untrack stops tracking a clan; its history is kept (and no longer
// served) and its pending snapshot jobs are dropped. Untracking a clan
// that is not tracked changes nothing and reports false; an unknown clan
// is ErrNotFound.
func (c *ClanStore) Untrack(ctx context.Context, tag string, now time.Time) (changed bool, err error) {
	err = c.inTx(ctx, func(tx *gorm.DB) error {
		clan, err := trackedClanByTag(tx, tag, c.forUpdate())
		if err != nil || !clan.Active {
			return err
		}
		if err := tx.Exec(`UPDATE tracked_clans SET active = FALSE, untracked_at = ? WHERE id = ?`, now.UTC(), clan.ID).Error; err != nil {
			return fmt.Errorf("untrack: %w", err)
		}
		changed = true
		return dropPendingJobs(tx, clan.ID, nil)
	})
	return changed, err
}

// SetWeekly switches weekly collection of a tracked clan on or off and
// reports whether that changed anything. Switching it off drops pending
// weekly jobs; stored weekly snapshots are kept. An unknown clan is
// ErrNotFound, an untracked one ErrNotTracked.
func (c *ClanStore) SetWeekly(ctx context.Context, tag string, on bool) (changed bool, err error) {
	err = c.inTx(ctx, func(tx *gorm.DB) error {
		clan, err := trackedClanByTag(tx, tag, c.forUpdate())
		switch {
		case err != nil:
			return err
		case !clan.Active:
			return ErrNotTracked
		case clan.Weekly == on:
			return nil
		}
		if err := tx.Exec(`UPDATE tracked_clans SET weekly = ? WHERE id = ?`, on, clan.ID).Error; err != nil {
			return fmt.Errorf("set weekly: %w", err)
		}
		changed = true
		if on {
			return nil
		}
		weekly := SnapshotWeekly
		return dropPendingJobs(tx, clan.ID, &weekly)
	})
	return changed, err
}

// TrackedClan returns the tracked_clans row of tag (active or not), or
// ErrNotFound.
func (c *ClanStore) TrackedClan(ctx context.Context, tag string) (TrackedClan, error) {
	clan, err := trackedClanByTag(c.store.DB(ctx), tag, "")
	return clan, c.store.Translate(err)
}

func trackedClanByTag(db *gorm.DB, tag, suffix string) (TrackedClan, error) {
	var clans []TrackedClan
	if err := db.Raw(`SELECT `+trackedClanColumns+` FROM tracked_clans WHERE tag = ?`+suffix, tag).Scan(&clans).Error; err != nil {
		return TrackedClan{}, fmt.Errorf("read tracked clan: %w", err)
	}
	if len(clans) == 0 {
		return TrackedClan{}, ErrNotFound
	}
	return clans[0], nil
}

// TrackingStatus answers GET /clan/:tag/tracking in one query. A clan
// never tracked is not an error: it answers inactive, unavailable, not
// legible (never checked), with no snapshots.
func (c *ClanStore) TrackingStatus(ctx context.Context, tag string) (ClanTracking, error) {
	var rows []struct {
		Active        bool
		Legible       bool
		SnapshotCount int64
	}
	err := c.store.DB(ctx).Raw(`SELECT c.active, c.legible,
			(SELECT COUNT(*) FROM clan_snapshots s WHERE s.clan_id = c.id) AS snapshot_count
		FROM tracked_clans c WHERE c.tag = ?`, tag).Scan(&rows).Error
	if err != nil {
		return ClanTracking{}, fmt.Errorf("read tracking status: %w", c.store.Translate(err))
	}
	status := ClanTracking{Tag: tag}
	if len(rows) == 1 {
		status.Active = rows[0].Active
		status.Legible = rows[0].Legible
		status.SnapshotCount = rows[0].SnapshotCount
		status.Available = rows[0].SnapshotCount > 0
	}
	return status, nil
}

// TrackedClanSummary is a line of `crowns clans list`.
type TrackedClanSummary struct {
	TrackedClan
	SnapshotCount int64
	// LastSlot is the latest stored slot of either schedule; nil without
	// snapshots.
	LastSlot *time.Time
}

// ListTrackedClans returns the tracked clans ordered by tag, with their
// snapshot counts and latest slots; all (untracked ones too) when
// includeUntracked.
func (c *ClanStore) ListTrackedClans(ctx context.Context, includeUntracked bool) ([]TrackedClanSummary, error) {
	where := ` WHERE c.active`
	if includeUntracked {
		where = ``
	}
	var rows []struct {
		TrackedClan
		SnapshotCount int64
		LastSlot      *int64
	}
	err := c.store.DB(ctx).Raw(`SELECT c.id, c.tag, c.name, c.active, c.weekly, c.legible, c.override, c.tracked_since,
			c.tracked_by, c.tracked_by_key_id, c.last_checked_at, c.untracked_at,
			(SELECT COUNT(*) FROM clan_snapshots s WHERE s.clan_id = c.id) AS snapshot_count,
			(SELECT MAX(s.slot) FROM clan_snapshots s WHERE s.clan_id = c.id) AS last_slot
		FROM tracked_clans c` + where + ` ORDER BY c.tag`).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list tracked clans: %w", c.store.Translate(err))
	}
	out := make([]TrackedClanSummary, len(rows))
	for i, row := range rows {
		out[i] = TrackedClanSummary{TrackedClan: row.TrackedClan, SnapshotCount: row.SnapshotCount}
		if row.LastSlot != nil {
			last := time.Unix(*row.LastSlot, 0).UTC()
			out[i].LastSlot = &last
		}
	}
	return out, nil
}
