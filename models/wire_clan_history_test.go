package models_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

// TestClanHistoryJSONIsEncodingJSONs: the hand-written history encoder
// writes, byte for byte, each snapshot as encoding/json writes its struct,
// under its slot key in order — names with quotes, HTML characters,
// control characters and invalid UTF-8 included.
func TestClanHistoryJSONIsEncodingJSONs(t *testing.T) {
	start := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	names := []string{"Zoë", `"quoted" \ name`, "<script>&", "tab\tnew\nline", "bad\xffutf8", "\u2028", "", "ラッキー🍀"}
	var history models.ClanHistory
	for s := range 9 {
		snapshot := models.HistorySnapshot{Slot: start.Add(time.Duration(s) * 4 * time.Hour), Donations: s * 1000, MemberCount: s, Score: 43000 + s*s - 40}
		for m := range s {
			snapshot.Members = append(snapshot.Members, models.HistoryMember{
				ClanRank: m + 1, Crowns: m * 7, Donations: -m, Name: names[(s+m)%len(names)], Tag: "2PP" + strings.Repeat("Y", m%4), Trophies: 4000 + s*m,
			})
		}
		if s == 3 {
			snapshot.Members = []models.HistoryMember{} // empty, not absent
		}
		history = append(history, snapshot)
	}
	for _, h := range []models.ClanHistory{nil, {}, history[:1], history} {
		want := []byte("{")
		for i, snapshot := range h {
			if i > 0 {
				want = append(want, ',')
			}
			body, err := json.Marshal(snapshot) // the struct, by reflection
			if err != nil {
				t.Fatal(err)
			}
			want = append(append(want, `"`+models.HistoryKey(snapshot.Slot)+`":`...), body...)
		}
		want = append(want, '}')
		if got := h.AppendJSON([]byte("prefix")); string(got) != "prefix"+string(want) {
			t.Fatalf("history of %d snapshots:\ngot  %s\nwant %s", len(h), got[len("prefix"):], want)
		}
		marshalled, err := json.Marshal(h)
		if err != nil || string(marshalled) != string(want) {
			t.Fatalf("json.Marshal of the history: %v\n%s", err, marshalled)
		}
	}
}

// FuzzHistorySnapshotJSON holds the history encoder to encoding/json for
// any numbers and names of a snapshot, score included.
func FuzzHistorySnapshotJSON(f *testing.F) {
	f.Add(int64(1514836800), 43709, 4070, 50, 1, 43, 58, "pwncake", "9V9G9008", 4442, false)
	f.Add(int64(0), -1, 0, 0, 0, 0, 0, "", "", 0, true)
	f.Fuzz(func(t *testing.T, slot int64, score, donations, memberCount, rank, crowns, memberDonations int, name, tag string, trophies int, nilMembers bool) {
		snapshot := models.HistorySnapshot{Slot: time.Unix(slot%(1<<40), 0).UTC(), Score: score, Donations: donations, MemberCount: memberCount}
		if !nilMembers {
			snapshot.Members = []models.HistoryMember{{ClanRank: rank, Crowns: crowns, Donations: memberDonations, Name: name, Tag: tag, Trophies: trophies}}
		}
		body, err := json.Marshal(snapshot)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"` + models.HistoryKey(snapshot.Slot) + `":` + string(body) + `}`
		history := models.ClanHistory{snapshot}
		if got := history.AppendJSON(nil); string(got) != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}
