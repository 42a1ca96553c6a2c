package store

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"
)

// ClanHistoryFingerprint returns the fingerprint of the history answer
// of (tag, kind, from, to) as the database holds it now, refusals
// included (it is no error that the clan is not tracked), without reading
// the snapshots themselves: one query over the clan's unique tag and the
// (clan, kind, slot) primary key of clan_snapshots, whose slot range
// prunes the monthly partitions on PostgreSQL. It is what ClanHistory
// would return with the history read now.
func (s *Store) ClanHistoryFingerprint(ctx context.Context, tag string, kind models.SnapshotKind, from, to time.Time) (models.HistoryFingerprint, error) {
	var rows []struct {
		ClanID    int64
		Active    bool
		Weekly    bool
		Snapshots int64
		FirstSlot int64
		LastSlot  int64
		SlotSum   int64
	}
	err := s.session(ctx).Raw(`SELECT c.id AS clan_id, c.active, c.weekly, COUNT(s.slot) AS snapshots,
			COALESCE(MIN(s.slot), 0) AS first_slot, COALESCE(MAX(s.slot), 0) AS last_slot,
			COALESCE(CAST(SUM(s.slot) AS BIGINT), 0) AS slot_sum
		FROM tracked_clans c LEFT JOIN clan_snapshots s
			ON s.clan_id = c.id AND s.kind = ? AND s.slot >= ? AND s.slot <= ?
		WHERE c.tag = ? GROUP BY c.id, c.active, c.weekly`, kind, from.Unix(), to.Unix(), tag).Scan(&rows).Error
	if err != nil {
		return models.HistoryFingerprint{}, fmt.Errorf("read the %s history fingerprint of %s: %w", kind, tag, s.Translate(err))
	}
	if len(rows) == 0 {
		return models.HistoryFingerprint{}, nil
	}
	row := rows[0]
	return models.HistoryFingerprint{
		ClanID: row.ClanID, Active: row.Active, Weekly: row.Weekly,
		Snapshots: row.Snapshots, FirstSlot: row.FirstSlot, LastSlot: row.LastSlot, SlotSum: row.SlotSum,
	}, nil
}
