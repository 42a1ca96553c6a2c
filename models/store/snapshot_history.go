package store

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"
)

// ClanHistory returns the stored snapshots of a tracked clan of one
// schedule whose slots lie in [from, to], ascending. It costs one indexed
// query (the clan by its unique tag, joined to the snapshots' primary-key
// range) plus, only for players missing from the in-process dictionary
// cache, one query per 500 of them. ErrNotTracked when the clan is not
// tracked now (history of an untracked clan is kept but not served);
// ErrWeeklyNotEnabled for the weekly history of a clan without weekly
// collection.
func (s *Store) ClanHistory(ctx context.Context, tag string, kind models.SnapshotKind, from, to time.Time) ([]models.HistorySnapshot, error) {
	history, _, err := s.FingerprintedClanHistory(ctx, tag, kind, from, to)
	return history, err
}

// FingerprintedClanHistory is ClanHistory with the fingerprint of what it
// read (see ClanHistoryFingerprint), taken from the same query, so it
// describes exactly the data of the answer: a write that commits after
// the read changes the fingerprint the database gives next. The
// fingerprint comes with the refusals too (ErrNotTracked,
// ErrWeeklyNotEnabled), not with other errors.
func (s *Store) FingerprintedClanHistory(ctx context.Context, tag string, kind models.SnapshotKind, from, to time.Time) ([]models.HistorySnapshot, models.HistoryFingerprint, error) {
	type historyRow struct {
		ClanID      int64
		Active      bool
		Weekly      bool
		Slot        *int64
		Score       int
		Donations   int
		MemberCount int
		Members     []byte
	}
	var rows []historyRow
	err := s.session(ctx).Raw(`SELECT c.id AS clan_id, c.active, c.weekly, s.slot, COALESCE(s.score, 0) AS score, s.donations, s.member_count, s.members
		FROM tracked_clans c LEFT JOIN clan_snapshots s
			ON s.clan_id = c.id AND s.kind = ? AND s.slot >= ? AND s.slot <= ?
		WHERE c.tag = ? ORDER BY s.slot`, kind, from.Unix(), to.Unix(), tag).Scan(&rows).Error
	if err != nil {
		return nil, models.HistoryFingerprint{}, fmt.Errorf("read %s history of %s: %w", kind, tag, s.Translate(err))
	}
	if len(rows) == 0 {
		return nil, models.HistoryFingerprint{}, models.ErrNotTracked
	}
	fingerprint := models.NewHistoryFingerprint(rows[0].ClanID, rows[0].Active, rows[0].Weekly)
	for _, row := range rows {
		if row.Slot != nil {
			fingerprint.AddSlot(*row.Slot)
		}
	}
	switch {
	case !rows[0].Active:
		return nil, fingerprint, models.ErrNotTracked
	case kind == models.SnapshotWeekly && !rows[0].Weekly:
		return nil, fingerprint, models.ErrWeeklyNotEnabled
	}
	history := make([]models.HistorySnapshot, 0, len(rows))
	stats := make([][]MemberStats, 0, len(rows))
	var ids []int64
	for _, row := range rows {
		if row.Slot == nil {
			continue // the clan has no snapshot in range: the LEFT JOIN's one empty row
		}
		members, err := DecodeMemberStats(row.Members)
		if err != nil {
			return nil, models.HistoryFingerprint{}, fmt.Errorf("%s snapshot of %s at %d: %w", kind, tag, *row.Slot, err)
		}
		for _, m := range members {
			ids = append(ids, m.PlayerID)
		}
		stats = append(stats, members)
		history = append(history, models.HistorySnapshot{
			Slot:        time.Unix(*row.Slot, 0).UTC(),
			Score:       row.Score,
			Donations:   row.Donations,
			MemberCount: row.MemberCount,
		})
	}
	players, err := s.playerKeys(ctx, ids)
	if err != nil {
		return nil, models.HistoryFingerprint{}, err
	}
	for i, members := range stats {
		out := make([]models.HistoryMember, len(members))
		for j, m := range members {
			player := players[m.PlayerID]
			out[j] = models.HistoryMember{
				ClanRank:  m.ClanRank,
				Crowns:    m.Crowns,
				Donations: m.Donations,
				Name:      player.Name,
				Tag:       player.Tag,
				Trophies:  m.Trophies,
			}
		}
		history[i].Members = out
	}
	return history, fingerprint, nil
}
