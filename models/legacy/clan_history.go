package legacy

import (
	"strconv"

	"github.com/crownsdev/crowns/models"
)

// ClanHistory is a history answer: snapshots in ascending slot order. It
// encodes as a JSON object keyed by HistoryKey(slot), in that order.
type ClanHistory []models.HistorySnapshot

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
		dst = appendSnapshot(dst, &h[i])
	}
	return append(dst, '}')
}

// appendSnapshot appends the snapshot's legacy shape.
func appendSnapshot(dst []byte, s *models.HistorySnapshot) []byte {
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
			dst = appendMember(dst, &s.Members[i])
		}
		dst = append(dst, ']')
	}
	dst = strconv.AppendInt(append(dst, `,"score":`...), int64(s.Score), 10)
	return append(dst, '}')
}

// appendMember appends the member's legacy shape.
func appendMember(dst []byte, m *models.HistoryMember) []byte {
	dst = strconv.AppendInt(append(dst, `{"clanRank":`...), int64(m.ClanRank), 10)
	dst = strconv.AppendInt(append(dst, `,"crowns":`...), int64(m.Crowns), 10)
	dst = strconv.AppendInt(append(dst, `,"donations":`...), int64(m.Donations), 10)
	dst = appendJSONString(append(dst, `,"name":`...), m.Name)
	dst = appendJSONString(append(dst, `,"tag":`...), m.Tag)
	dst = strconv.AppendInt(append(dst, `,"trophies":`...), int64(m.Trophies), 10)
	return append(dst, '}')
}
