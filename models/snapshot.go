package models

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// SnapshotOf turns a clan as the upstream returned it into the snapshot
// stored for a slot: members in rank order with their trophies, donations
// and crowns (clan-chest points, 0 when absent), donations the sum of the
// members' donations, and memberCount the number of members listed.
func SnapshotOf(clan ClanDetails, slot time.Time) HistorySnapshot {
	members := make([]HistoryMember, len(clan.Members))
	donations := 0
	for i, m := range clan.Members {
		members[i] = HistoryMember{
			ClanRank:  m.ClanRank,
			Crowns:    m.ClanChestPoints,
			Donations: m.Donations,
			Name:      m.Name,
			Tag:       strings.TrimPrefix(m.Tag, "#"),
			Trophies:  m.Trophies,
		}
		donations += m.Donations
	}
	slices.SortStableFunc(members, func(a, b HistoryMember) int { return cmp.Compare(a.ClanRank, b.ClanRank) })
	return HistorySnapshot{Slot: slot.UTC(), Donations: donations, MemberCount: len(members), Members: members}
}

// snapshotRow is a row of clan_snapshots.
type snapshotRow struct {
	ClanID      int64
	Kind        SnapshotKind
	Slot        int64
	Donations   int
	MemberCount int
	Members     []byte
}

// encodeSnapshot resolves the members' dictionary ids (creating missing
// rows) and makes sure the slot's partition exists: the work of a snapshot
// write that happens before its transaction.
func (c *ClanStore) encodeSnapshot(ctx context.Context, clanID int64, kind SnapshotKind, snapshot HistorySnapshot) (snapshotRow, error) {
	if !kind.Valid() {
		return snapshotRow{}, fmt.Errorf("snapshot of unknown kind %d", kind)
	}
	ids, err := c.playerIDs(ctx, snapshot.Members)
	if err != nil {
		return snapshotRow{}, err
	}
	if err := c.EnsureSnapshotPartitions(ctx, snapshot.Slot, snapshot.Slot); err != nil {
		return snapshotRow{}, err
	}
	stats := make([]MemberStats, len(snapshot.Members))
	for i, m := range snapshot.Members {
		stats[i] = MemberStats{PlayerID: ids[i], ClanRank: m.ClanRank, Trophies: m.Trophies, Donations: m.Donations, Crowns: m.Crowns}
	}
	return snapshotRow{
		ClanID:      clanID,
		Kind:        kind,
		Slot:        snapshot.Slot.Unix(),
		Donations:   snapshot.Donations,
		MemberCount: snapshot.MemberCount,
		Members:     EncodeMemberStats(stats),
	}, nil
}

// insertSnapshot stores row unless the (clan, kind, slot) already has a
// snapshot; it reports whether it stored.
func insertSnapshot(tx *gorm.DB, row snapshotRow) (bool, error) {
	res := tx.Exec(`INSERT INTO clan_snapshots (clan_id, kind, slot, donations, member_count, members)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (clan_id, kind, slot) DO NOTHING`,
		row.ClanID, row.Kind, row.Slot, row.Donations, row.MemberCount, row.Members)
	if res.Error != nil {
		return false, fmt.Errorf("insert snapshot: %w", res.Error)
	}
	return res.RowsAffected == 1, nil
}

// SaveSnapshot stores a snapshot of a tracked clan for its slot; a second
// save of the same (clan, kind, slot) changes nothing and reports false.
// The scheduler stores through its jobs; this is for imports and tests.
func (c *ClanStore) SaveSnapshot(ctx context.Context, clanID int64, kind SnapshotKind, snapshot HistorySnapshot) (bool, error) {
	row, err := c.encodeSnapshot(ctx, clanID, kind, snapshot)
	if err != nil {
		return false, err
	}
	var stored bool
	err = c.inTx(ctx, func(tx *gorm.DB) error {
		stored, err = insertSnapshot(tx, row)
		return err
	})
	return stored, err
}
