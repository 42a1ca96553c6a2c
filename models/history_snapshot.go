package models

import "time"

// HistoryMember is one clan member in a snapshot, in the legacy history
// shape. It is also what the scheduler stores: the stats come from the
// upstream member, Crowns from its clan-chest points.
type HistoryMember struct {
	ClanRank  int    `json:"clanRank"`
	Crowns    int    `json:"crowns"`
	Donations int    `json:"donations"`
	Name      string `json:"name"`
	Tag       string `json:"tag"`
	Trophies  int    `json:"trophies"`
}

// HistorySnapshot is one stored snapshot: the slot it belongs to (the key
// of the history object, not a field) and its legacy shape, whose score
// is the clan's score at that slot (0 in snapshots stored before scores
// were).
type HistorySnapshot struct {
	Slot        time.Time       `json:"-"`
	Donations   int             `json:"donations"`
	MemberCount int             `json:"memberCount"`
	Members     []HistoryMember `json:"members"`
	Score       int             `json:"score"`
}

// ClanTracking is the answer of GET /clan/:tag/tracking. Active: the clan
// is tracked now. Available: at least one snapshot is stored. Legible: the
// clan description contained the tracking address at the last check.
// SnapshotCount counts stored snapshots of both schedules. A clan never
// tracked answers with false and 0 values.
type ClanTracking struct {
	Tag           string `json:"tag"`
	Active        bool   `json:"active"`
	Available     bool   `json:"available"`
	Legible       bool   `json:"legible"`
	SnapshotCount int64  `json:"snapshotCount"`
}
