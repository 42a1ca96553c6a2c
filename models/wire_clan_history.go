package models

import (
	"strconv"
	"time"
)

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

// ClanHistory is a history answer: snapshots in ascending slot order. It
// encodes as a JSON object keyed by HistoryKey(slot), in that order.
type ClanHistory []HistorySnapshot

// MarshalJSON writes the history as {"YYYY-MM-DD-HH-mm": snapshot, ...}.
func (h ClanHistory) MarshalJSON() ([]byte, error) {
	return h.AppendJSON(nil), nil
}

// AppendJSON appends the history's JSON to dst: byte for byte what
// encoding/json writes for it, a good deal faster (a 7-day history of a
// 50-member clan is rendered once per clan and day, and again whenever the
// clan changes).
func (h ClanHistory) AppendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	for i := range h {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = appendHistoryKey(dst, h[i].Slot)
		dst = append(dst, `":`...)
		dst = h[i].appendJSON(dst)
	}
	return append(dst, '}')
}

// appendJSON appends the snapshot's legacy shape.
func (s *HistorySnapshot) appendJSON(dst []byte) []byte {
	dst = strconv.AppendInt(append(dst, `{"donations":`...), int64(s.Donations), 10)
	dst = strconv.AppendInt(append(dst, `,"memberCount":`...), int64(s.MemberCount), 10)
	if s.Members == nil {
		dst = append(dst, `,"members":null`...)
	} else {
		dst = append(dst, `,"members":[`...)
		for i := range s.Members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = s.Members[i].appendJSON(dst)
		}
		dst = append(dst, ']')
	}
	dst = strconv.AppendInt(append(dst, `,"score":`...), int64(s.Score), 10)
	return append(dst, '}')
}

// appendJSON appends the member's legacy shape.
func (m *HistoryMember) appendJSON(dst []byte) []byte {
	dst = strconv.AppendInt(append(dst, `{"clanRank":`...), int64(m.ClanRank), 10)
	dst = strconv.AppendInt(append(dst, `,"crowns":`...), int64(m.Crowns), 10)
	dst = strconv.AppendInt(append(dst, `,"donations":`...), int64(m.Donations), 10)
	dst = appendJSONString(append(dst, `,"name":`...), m.Name)
	dst = appendJSONString(append(dst, `,"tag":`...), m.Tag)
	dst = strconv.AppendInt(append(dst, `,"trophies":`...), int64(m.Trophies), 10)
	return append(dst, '}')
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
