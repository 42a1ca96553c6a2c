package sandbox_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/upstream/official"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

func TestTournamentsOfEveryKindExist(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	statuses := map[string]int{}
	var thousand, full, protected int
	for _, tag := range f.world.TournamentTags() {
		tour := decode[official.Tournament](t, f, "/tournaments/%23"+tag)
		statuses[tour.Status]++
		if tour.MaxCapacity == 1000 {
			thousand++
		}
		if tour.Capacity == tour.MaxCapacity {
			full++
		}
		if tour.Type == "passwordProtected" {
			protected++
		}
		if len(tour.MembersList) != tour.Capacity {
			t.Fatalf("%s: %d members for capacity %d", tag, len(tour.MembersList), tour.Capacity)
		}
	}
	if statuses["inPreparation"] == 0 || statuses["inProgress"] == 0 || statuses["ended"] == 0 {
		t.Errorf("statuses %v, want all three", statuses)
	}
	if thousand == 0 || full == 0 || protected == 0 {
		t.Errorf("%d with 1000 places, %d full, %d password protected: want some of each", thousand, full, protected)
	}
}

func TestTournamentMovesThroughItsStatuses(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	var tour official.Tournament
	for _, tag := range f.world.TournamentTags() {
		if tour = decode[official.Tournament](t, f, "/tournaments/%23"+tag); tour.Status == "inPreparation" {
			break
		}
	}
	if tour.Status != "inPreparation" || tour.StartedTime != "" || tour.EndedTime != "" {
		t.Fatalf("no tournament in preparation, or one with times: %+v", tour.TournamentHeader)
	}
	for _, m := range tour.MembersList {
		if m.Score != 0 {
			t.Fatalf("a score of %d before the start", m.Score)
		}
	}
	created, _ := official.ParseTime(tour.CreatedTime)
	path := "/tournaments/" + strings.Replace(tour.Tag, "#", "%23", 1)
	preparation := time.Duration(tour.PreparationDuration) * time.Second
	duration := time.Duration(tour.Duration) * time.Second

	f.clock.Set(created.Add(preparation + duration/2))
	running := decode[official.Tournament](t, f, path)
	started, _ := official.ParseTime(running.StartedTime)
	if running.Status != "inProgress" || !started.Equal(created.Add(preparation)) || running.EndedTime != "" {
		t.Fatalf("half way: status %s, started %q, ended %q", running.Status, running.StartedTime, running.EndedTime)
	}
	if running.Capacity < tour.Capacity {
		t.Fatalf("capacity fell from %d to %d", tour.Capacity, running.Capacity)
	}

	f.clock.Set(created.Add(preparation + duration + time.Minute))
	over := decode[official.Tournament](t, f, path)
	ended, _ := official.ParseTime(over.EndedTime)
	if over.Status != "ended" || !ended.Equal(created.Add(preparation+duration)) {
		t.Fatalf("after the end: status %s, ended %q", over.Status, over.EndedTime)
	}
	for i, m := range over.MembersList {
		if m.Rank != i+1 || (i > 0 && m.Score > over.MembersList[i-1].Score) {
			t.Fatalf("member %d: rank %d, score %d out of order", i, m.Rank, m.Score)
		}
	}

	f.clock.Set(created.Add(-time.Minute))
	if status, _ := f.get(t, path); status != 404 {
		t.Fatalf("before its creation the tournament answers %d, want 404", status)
	}
}

func TestTournamentSearchListsHeaders(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	status, body := f.get(t, "/tournaments?name=cup")
	if status != 200 || bytes.Contains(body, []byte("membersList")) {
		t.Fatalf("status %d, body carries members: %v", status, bytes.Contains(body, []byte("membersList")))
	}
	list := decode[official.List[official.TournamentHeader]](t, f, "/tournaments?name=CUP&limit=3")
	if len(list.Items) != 3 || list.Paging.Cursors.After == "" {
		t.Fatalf("%d items, cursors %+v", len(list.Items), list.Paging.Cursors)
	}
	for _, h := range list.Items {
		if !strings.Contains(strings.ToLower(h.Name), "cup") {
			t.Errorf("header %q does not match", h.Name)
		}
	}
	if status, _ := f.get(t, "/tournaments?name=cu"); status != 400 {
		t.Errorf("a two-letter name: status %d, want 400", status)
	}
}

// TestTournamentWithoutDescriptionLeavesItOut: the game API leaves out the
// description of a tournament whose creator wrote none, in its search
// results and in the full answer, rather than sending an empty string.
func TestTournamentWithoutDescriptionLeavesItOut(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	without := 0
	for _, tag := range f.world.TournamentTags() {
		path := "/tournaments/%23" + tag
		_, body := f.get(t, path)
		var full map[string]json.RawMessage
		if err := json.Unmarshal(body, &full); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		description, given := full["description"]
		if !given {
			without++
			continue
		}
		if string(description) == `""` {
			t.Fatalf("GET %s: an empty description is sent as \"\", the game API leaves it out", path)
		}
	}
	if without == 0 {
		t.Fatal("no tournament without a description: the test proves nothing")
	}
	list := decode[official.List[map[string]json.RawMessage]](t, f, "/tournaments?name=cup&limit=1000")
	for _, h := range list.Items {
		if string(h["description"]) == `""` {
			t.Fatalf("search result %s: an empty description is sent as \"\", the game API leaves it out", h["tag"])
		}
	}
}
