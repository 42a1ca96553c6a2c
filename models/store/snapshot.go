package store

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/crownsdev/crowns/models"

	"gorm.io/gorm"
)

// snapshotRow is a row of clan_snapshots.
type snapshotRow struct {
	ClanID      int64
	Kind        models.SnapshotKind
	Slot        int64
	Score       int
	Donations   int
	MemberCount int
	Members     []byte
}

// snapshotsPerInsert bounds the rows of one multi-row insert (seven
// parameters each).
const snapshotsPerInsert = 200

// encodeSnapshot is encodeSnapshots of one snapshot.
func (s *Store) encodeSnapshot(ctx context.Context, clanID int64, kind models.SnapshotKind, snapshot models.HistorySnapshot) (snapshotRow, error) {
	rows, err := s.encodeSnapshots(ctx, clanID, kind, []models.HistorySnapshot{snapshot})
	if err != nil {
		return snapshotRow{}, err
	}
	return rows[0], nil
}

// encodeSnapshots resolves the members' dictionary ids (creating missing
// rows, for all the snapshots together) and makes sure the slots'
// partitions exist: the work of a snapshot write that happens before its
// transaction.
func (s *Store) encodeSnapshots(ctx context.Context, clanID int64, kind models.SnapshotKind, snapshots []models.HistorySnapshot) ([]snapshotRow, error) {
	if !kind.Valid() {
		return nil, fmt.Errorf("snapshot of unknown kind %d", kind)
	}
	var members []models.HistoryMember
	first, last := snapshots[0].Slot, snapshots[0].Slot
	for _, snapshot := range snapshots {
		members = append(members, snapshot.Members...)
		first, last = minTime(first, snapshot.Slot), maxTime(last, snapshot.Slot)
	}
	ids, err := s.playerIDs(ctx, members)
	if err != nil {
		return nil, err
	}
	if err := s.EnsureSnapshotPartitions(ctx, first, last); err != nil {
		return nil, err
	}
	rows := make([]snapshotRow, len(snapshots))
	for i, snapshot := range snapshots {
		stats := make([]MemberStats, len(snapshot.Members))
		for j, m := range snapshot.Members {
			stats[j] = MemberStats{PlayerID: ids[j], ClanRank: m.ClanRank, Trophies: m.Trophies, Donations: m.Donations, Crowns: m.Crowns}
		}
		ids = ids[len(snapshot.Members):]
		rows[i] = snapshotRow{
			ClanID:      clanID,
			Kind:        kind,
			Slot:        snapshot.Slot.Unix(),
			Score:       snapshot.Score,
			Donations:   snapshot.Donations,
			MemberCount: snapshot.MemberCount,
			Members:     EncodeMemberStats(stats),
		}
	}
	return rows, nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// insertSnapshot stores row unless the (clan, kind, slot) already has a
// snapshot; it reports whether it stored.
func insertSnapshot(tx *gorm.DB, row snapshotRow) (bool, error) {
	stored, err := insertSnapshots(tx, []snapshotRow{row})
	return stored == 1, err
}

// insertSnapshots stores the rows whose (clan, kind, slot) has no snapshot
// yet, in multi-row statements, and returns how many it stored.
func insertSnapshots(tx *gorm.DB, rows []snapshotRow) (int, error) {
	stored := 0
	for chunk := range slices.Chunk(rows, snapshotsPerInsert) {
		args := make([]any, 0, 7*len(chunk))
		for _, row := range chunk {
			args = append(args, row.ClanID, row.Kind, row.Slot, row.Score, row.Donations, row.MemberCount, row.Members)
		}
		res := tx.Exec(`INSERT INTO clan_snapshots (clan_id, kind, slot, score, donations, member_count, members) VALUES `+
			valuesList(len(chunk), "(?, ?, ?, ?, ?, ?, ?)")+` ON CONFLICT (clan_id, kind, slot) DO NOTHING`, args...)
		if res.Error != nil {
			return stored, fmt.Errorf("insert snapshots: %w", res.Error)
		}
		stored += int(res.RowsAffected)
	}
	return stored, nil
}

// SaveSnapshots stores many snapshots of one tracked clan and schedule
// at once (crowns clans import, a history brought from elsewhere): the members of all of them resolved
// against the player dictionary together, then one transaction of
// multi-row inserts. Slots that already have a snapshot are left alone;
// it returns how many snapshots it stored.
func (s *Store) SaveSnapshots(ctx context.Context, clanID int64, kind models.SnapshotKind, snapshots []models.HistorySnapshot) (int, error) {
	if len(snapshots) == 0 {
		return 0, nil
	}
	rows, err := s.encodeSnapshots(ctx, clanID, kind, snapshots)
	if err != nil {
		return 0, err
	}
	var (
		stored int
		tag    string
	)
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		if stored, err = insertSnapshots(tx, rows); err != nil || stored == 0 {
			return err
		}
		if err := tx.Raw(`SELECT tag FROM tracked_clans WHERE id = ?`, clanID).Scan(&tag).Error; err != nil {
			return fmt.Errorf("read the tag of clan %d: %w", clanID, err)
		}
		return s.notifyClanChange(tx, tag)
	})
	if err != nil {
		return 0, err
	}
	if stored > 0 {
		s.clanChanged(tag)
	}
	return stored, nil
}
