package store

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"

	"gorm.io/gorm"
)

const trackedClanColumns = `id, tag, name, active, weekly, legible, override, tracked_since,
	tracked_by, tracked_by_key_id, last_checked_at, untracked_at`

// Track starts tracking a clan, or restarts it after an untrack (history
// kept, tracked_since and tracked_by renewed), records the check of its
// description, and stores the snapshot of the current 4-hourly slot from
// the data just fetched, marking that slot's job done. Tracking an
// already tracked clan duplicates nothing.
func (s *Store) Track(ctx context.Context, req models.TrackRequest) (models.TrackResult, error) {
	if req.By != models.TrackedByKey && req.By != models.TrackedByOperator {
		return models.TrackResult{}, fmt.Errorf("track %s: unknown requester kind %q", req.Tag, req.By)
	}
	now := req.Now.UTC()
	slot := models.SnapshotFourHourly.SlotAt(now)
	var keyID *int64
	if req.By == models.TrackedByKey {
		keyID = &req.KeyID
	}
	override := req.By == models.TrackedByOperator
	snapshot := models.SnapshotOf(req.Clan, slot)
	// The snapshot row is prepared before the transaction; its clan id is
	// filled in once known.
	row, err := s.encodeSnapshot(ctx, 0, models.SnapshotFourHourly, snapshot)
	if err != nil {
		return models.TrackResult{}, err
	}
	var result models.TrackResult
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		inserted := tx.Exec(`INSERT INTO tracked_clans (tag, name, active, legible, override, tracked_since, tracked_by, tracked_by_key_id, last_checked_at)
			VALUES (?, ?, TRUE, ?, ?, ?, ?, ?, ?) ON CONFLICT (tag) DO NOTHING`,
			req.Tag, req.Clan.Name, req.Legible, override, now, req.By, keyID, now)
		if inserted.Error != nil {
			return fmt.Errorf("insert tracked clan: %w", inserted.Error)
		}
		clan, err := trackedClanByTag(tx, req.Tag, s.forUpdate())
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
		if err := markSlotTaken(tx, clan.ID, models.SnapshotFourHourly, slot, now); err != nil {
			return err
		}
		if result.Clan, err = trackedClanByTag(tx, req.Tag, ""); err != nil {
			return err
		}
		if result.AlreadyTracked && !result.SnapshotStored {
			return nil
		}
		return s.notifyClanChange(tx, req.Tag)
	})
	if err == nil && (!result.AlreadyTracked || result.SnapshotStored) {
		s.clanChanged(req.Tag)
	}
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
func (s *Store) Untrack(ctx context.Context, tag string, now time.Time) (changed bool, err error) {
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		clan, err := trackedClanByTag(tx, tag, s.forUpdate())
		if err != nil || !clan.Active {
			return err
		}
		if err := tx.Exec(`UPDATE tracked_clans SET active = FALSE, untracked_at = ? WHERE id = ?`, now.UTC(), clan.ID).Error; err != nil {
			return fmt.Errorf("untrack: %w", err)
		}
		changed = true
		if err := dropPendingJobs(tx, clan.ID, nil); err != nil {
			return err
		}
		return s.notifyClanChange(tx, tag)
	})
	if err == nil && changed {
		s.clanChanged(tag)
	}
	return changed, err
}

// SetWeekly switches weekly collection of a tracked clan on or off and
// reports whether that changed anything. Switching it off drops pending
// weekly jobs; stored weekly snapshots are kept. An unknown clan is
// ErrNotFound, an untracked one ErrNotTracked.
func (s *Store) SetWeekly(ctx context.Context, tag string, on bool) (changed bool, err error) {
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		clan, err := trackedClanByTag(tx, tag, s.forUpdate())
		switch {
		case err != nil:
			return err
		case !clan.Active:
			return models.ErrNotTracked
		case clan.Weekly == on:
			return nil
		}
		if err := tx.Exec(`UPDATE tracked_clans SET weekly = ? WHERE id = ?`, on, clan.ID).Error; err != nil {
			return fmt.Errorf("set weekly: %w", err)
		}
		changed = true
		if !on {
			weekly := models.SnapshotWeekly
			if err := dropPendingJobs(tx, clan.ID, &weekly); err != nil {
				return err
			}
		}
		return s.notifyClanChange(tx, tag)
	})
	if err == nil && changed {
		s.clanChanged(tag)
	}
	return changed, err
}

// TrackedClan returns the tracked_clans row of tag (active or not), or
// ErrNotFound.
func (s *Store) TrackedClan(ctx context.Context, tag string) (models.TrackedClan, error) {
	clan, err := trackedClanByTag(s.session(ctx), tag, "")
	return clan, s.Translate(err)
}

func trackedClanByTag(db *gorm.DB, tag, suffix string) (models.TrackedClan, error) {
	var clans []models.TrackedClan
	if err := db.Raw(`SELECT `+trackedClanColumns+` FROM tracked_clans WHERE tag = ?`+suffix, tag).Scan(&clans).Error; err != nil {
		return models.TrackedClan{}, fmt.Errorf("read tracked clan: %w", err)
	}
	if len(clans) == 0 {
		return models.TrackedClan{}, models.ErrNotFound
	}
	return clans[0], nil
}

// TrackingStatus answers GET /clan/:tag/tracking in one query. A clan
// never tracked is not an error: it answers inactive, unavailable, not
// legible (never checked), with no snapshots.
func (s *Store) TrackingStatus(ctx context.Context, tag string) (models.ClanTracking, error) {
	var rows []struct {
		Active        bool
		Legible       bool
		SnapshotCount int64
	}
	err := s.session(ctx).Raw(`SELECT c.active, c.legible,
			(SELECT COUNT(*) FROM clan_snapshots s WHERE s.clan_id = c.id) AS snapshot_count
		FROM tracked_clans c WHERE c.tag = ?`, tag).Scan(&rows).Error
	if err != nil {
		return models.ClanTracking{}, fmt.Errorf("read tracking status: %w", s.Translate(err))
	}
	status := models.ClanTracking{Tag: tag}
	if len(rows) == 1 {
		status.Active = rows[0].Active
		status.Legible = rows[0].Legible
		status.SnapshotCount = rows[0].SnapshotCount
		status.Available = rows[0].SnapshotCount > 0
	}
	return status, nil
}

// ListTrackedClans returns the tracked clans ordered by tag, with their
// snapshot counts and latest slots; all (untracked ones too) when
// includeUntracked.
func (s *Store) ListTrackedClans(ctx context.Context, includeUntracked bool) ([]models.TrackedClanSummary, error) {
	where := ` WHERE c.active`
	if includeUntracked {
		where = ``
	}
	var rows []struct {
		models.TrackedClan
		SnapshotCount int64
		LastSlot      *int64
	}
	err := s.session(ctx).Raw(`SELECT c.id, c.tag, c.name, c.active, c.weekly, c.legible, c.override, c.tracked_since,
			c.tracked_by, c.tracked_by_key_id, c.last_checked_at, c.untracked_at,
			(SELECT COUNT(*) FROM clan_snapshots s WHERE s.clan_id = c.id) AS snapshot_count,
			(SELECT MAX(s.slot) FROM clan_snapshots s WHERE s.clan_id = c.id) AS last_slot
		FROM tracked_clans c` + where + ` ORDER BY c.tag`).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list tracked clans: %w", s.Translate(err))
	}
	out := make([]models.TrackedClanSummary, len(rows))
	for i, row := range rows {
		out[i] = models.TrackedClanSummary{TrackedClan: row.TrackedClan, SnapshotCount: row.SnapshotCount}
		if row.LastSlot != nil {
			last := time.Unix(*row.LastSlot, 0).UTC()
			out[i].LastSlot = &last
		}
	}
	return out, nil
}
