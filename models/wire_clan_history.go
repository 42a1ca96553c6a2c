package models

import (
	"bytes"
	"encoding/json"
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
// of the history object, not a field) and its legacy shape.
type HistorySnapshot struct {
	Slot        time.Time       `json:"-"`
	Donations   int             `json:"donations"`
	MemberCount int             `json:"memberCount"`
	Members     []HistoryMember `json:"members"`
}

// ClanHistory is a history answer: snapshots in ascending slot order. It
// encodes as a JSON object keyed by HistoryKey(slot), in that order.
type ClanHistory []HistorySnapshot

// MarshalJSON writes the history as {"YYYY-MM-DD-HH-mm": snapshot, ...}.
func (h ClanHistory) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, snapshot := range h {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('"')
		buf.WriteString(HistoryKey(snapshot.Slot))
		buf.WriteString(`":`)
		body, err := json.Marshal(snapshot)
		if err != nil {
			return nil, err
		}
		buf.Write(body)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
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
