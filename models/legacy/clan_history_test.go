package legacy_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/legacy"

	"github.com/crownsdev/crowns/models"
)

// TestClanHistoryJSONIsEncodingJSONs: the hand-written history encoder
// writes, byte for byte, each snapshot as encoding/json writes its struct,
// under its slot key in order — names with quotes, HTML characters,
// control characters and invalid UTF-8 included.
func TestClanHistoryJSONIsEncodingJSONs(t *testing.T) {
	start := time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC)
	names := []string{"Zoë", `"quoted" \ name`, "<script>&", "tab\tnew\nline", "bad\xffutf8", "\u2028", "", "ラッキー🍀"}
	var history legacy.ClanHistory
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
	for _, h := range []legacy.ClanHistory{nil, {}, history[:1], history} {
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
	f.Add(int64(1514836800), 43709, 4070, 50, 1, 43, 58, "quietfox", "9C2G8L0Y", 4442, false)
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
		history := legacy.ClanHistory{snapshot}
		if got := history.AppendJSON(nil); string(got) != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}

func TestClanHistoryEncodesAsOrderedObject(t *testing.T) {
	history := legacy.ClanHistory{
		{Slot: time.Date(2018, 1, 1, 20, 0, 0, 0, time.UTC), Donations: 58, MemberCount: 1, Score: 43709, Members: []models.HistoryMember{
			{ClanRank: 1, Crowns: 0, Donations: 58, Name: "Min", Tag: "L2PC8Q92", Trophies: 4610},
		}},
		{Slot: time.Date(2018, 1, 2, 0, 0, 0, 0, time.UTC), Donations: 0, MemberCount: 0, Members: []models.HistoryMember{}},
	}
	body, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"2018-01-01-20-00":{"donations":58,"memberCount":1,"members":[{"clanRank":1,"crowns":0,"donations":58,"name":"Min","tag":"L2PC8Q92","trophies":4610}],"score":43709},` +
		`"2018-01-02-00-00":{"donations":0,"memberCount":0,"members":[],"score":0}}`
	if string(body) != want {
		t.Fatalf("history encodes as\n%s\nwant\n%s", body, want)
	}
}
