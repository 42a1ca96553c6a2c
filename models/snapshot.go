package models

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// SnapshotOf turns a clan as the upstream returned it into the snapshot
// stored for a slot: the clan's score, members in rank order with their trophies, donations
// and crowns (clan-chest points, 0 when absent), memberCount the number of
// members listed, and donations the clan's donations of the week as the
// game counts them (DonationsPerWeek), as the legacy history gave them.
// The game's figure also counts members who have left since, so it is
// normally not below the listed members' sum; the larger of the two is
// kept, so that sum stands in when the upstream gave no figure.
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
	donations = max(donations, clan.DonationsPerWeek)
	return HistorySnapshot{Slot: slot.UTC(), Score: clan.Score, Donations: donations, MemberCount: len(members), Members: members}
}
