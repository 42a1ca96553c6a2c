package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

// Field sets of the list elements, as the legacy lists give them.
var (
	knownListKeys = []string{"tag", "type", "status", "name", "capacity", "playerCount", "maxCapacity",
		"preparationDuration", "duration", "createTime", "startTime", "endTime"}
	listItemKeys = []string{"tag", "name", "open", "maxPlayers", "currentPlayers", "status", "createTime",
		"prepTime", "startTime", "endTime", "duration", "description", "updatedAt", "members"}
)

// listFixture is one known tournament of the list tests.
type listFixture struct {
	tag, kind, status string
	players, places   int
}

// listFixtures are stored in this order, each seen a minute after the one
// before, so the lists answer them last first.
//
//	2PP0 open     1000/1000 inPreparation  1k full open inprep
//	2PP2 open       10/1000 inProgress     1k open joinable
//	2PP8 password     50/50 inProgress     full
//	2PP9 password    3/1000 inPreparation  1k inprep
//	2PPC open       20/100  ended          open
//	2PPG open        5/50   inPreparation  open inprep joinable
var listFixtures = []listFixture{
	{"2PP0", models.TournamentTypeOpen, models.TournamentInPreparation, 1000, 1000},
	{"2PP2", models.TournamentTypeOpen, models.TournamentInProgress, 10, 1000},
	{"2PP8", models.TournamentTypePasswordProtected, models.TournamentInProgress, 50, 50},
	{"2PP9", models.TournamentTypePasswordProtected, models.TournamentInPreparation, 3, 1000},
	{"2PPC", models.TournamentTypeOpen, models.TournamentEnded, 20, 100},
	{"2PPG", models.TournamentTypeOpen, models.TournamentInPreparation, 5, 50},
}

// storeListFixtures saves listFixtures as looked up, created two hours
// before the harness clock, started an hour later when started, ended
// half an hour after that when ended.
func storeListFixtures(t *testing.T, h *harness) {
	t.Helper()
	created := h.clock.Now().Add(-2 * time.Hour)
	for i, f := range listFixtures {
		details := models.TournamentDetails{
			Tag: f.tag, Type: f.kind, Status: f.status, Name: "Cup " + f.tag, Capacity: f.players, MaxCapacity: f.places,
			PreparationDuration: 3600, Duration: 1800, CreatedTime: created,
		}
		if f.status != models.TournamentInPreparation {
			details.StartedTime = created.Add(time.Hour)
		}
		if f.status == models.TournamentEnded {
			details.EndedTime = created.Add(90 * time.Minute)
		}
		if err := h.tournaments.SaveLookedUpTournament(t.Context(), details, created.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
}

// getList asks for a list and checks every element's field set and its
// start and end times against its status.
func getList(t *testing.T, h *harness, key, path string) []string {
	t.Helper()
	var elements []map[string]any
	decodeJSON(t, h.get(path, "auth", key), &elements)
	wantKeys := sortedCopy(listItemKeys)
	if strings.HasPrefix(path, "/tournaments/known") || strings.HasPrefix(path, "/tournaments/open") {
		wantKeys = sortedCopy(knownListKeys)
	}
	tags := make([]string, len(elements))
	for i, element := range elements {
		if keys := keysOf(element); !slices.Equal(keys, wantKeys) {
			t.Fatalf("%s: element keys %v, want %v", path, keys, wantKeys)
		}
		started, ended := element["status"] != models.TournamentInPreparation, element["status"] == models.TournamentEnded
		if (element["startTime"] != nil) != started || (element["endTime"] != nil) != ended {
			t.Fatalf("%s: %s %s with startTime %v, endTime %v", path, element["tag"], element["status"], element["startTime"], element["endTime"])
		}
		tags[i] = element["tag"].(string)
	}
	return tags
}

func TestTournamentListsAndFilters(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("70")
	storeListFixtures(t, h)
	for _, tt := range []struct {
		path string
		want []string
	}{
		{"/tournaments/known", []string{"2PPG", "2PPC", "2PP9", "2PP8", "2PP2", "2PP0"}},
		{"/tournaments/1k", []string{"2PP9", "2PP2", "2PP0"}},
		{"/tournaments/full", []string{"2PP8", "2PP0"}},
		{"/tournaments/open", []string{"2PPG", "2PPC", "2PP2", "2PP0"}},
		{"/tournaments/inprep", []string{"2PPG", "2PP9", "2PP0"}},
		{"/tournaments/joinable", []string{"2PPG", "2PP2"}},

		{"/tournaments/known?1k=1", []string{"2PP9", "2PP2", "2PP0"}},
		{"/tournaments/known?1k=0", []string{"2PPG", "2PPC", "2PP8"}},
		{"/tournaments/known?open=1", []string{"2PPG", "2PPC", "2PP2", "2PP0"}},
		{"/tournaments/known?open=0", []string{"2PP9", "2PP8"}},
		{"/tournaments/known?full=1", []string{"2PP8", "2PP0"}},
		{"/tournaments/known?full=0", []string{"2PPG", "2PPC", "2PP9", "2PP2"}},
		{"/tournaments/known?inprep=1", []string{"2PPG", "2PP9", "2PP0"}},
		{"/tournaments/known?inprep=0", []string{"2PPC", "2PP8", "2PP2"}},
		{"/tournaments/known?joinable=1", []string{"2PPG", "2PP2"}},
		{"/tournaments/known?joinable=0", []string{"2PPC", "2PP9", "2PP8", "2PP0"}},

		{"/tournaments/known?open=1&full=0", []string{"2PPG", "2PPC", "2PP2"}},
		{"/tournaments/known?1k=1&inprep=1", []string{"2PP9", "2PP0"}},
		{"/tournaments/known?1k=1&inprep=1&open=0", []string{"2PP9"}},
		{"/tournaments/known?1k=0&open=1&full=0&inprep=0&joinable=0", []string{"2PPC"}},
		{"/tournaments/1k?open=0", []string{"2PP9"}},
		{"/tournaments/open?joinable=0", []string{"2PPC", "2PP0"}},
		{"/tournaments/joinable?1k=1", []string{"2PP2"}},
		{"/tournaments/inprep?joinable=1&1k=0", []string{"2PPG"}},
		{"/tournaments/full?full=0", []string{}},
		{"/tournaments/full?open=1&inprep=0", []string{}},
		{"/tournaments/known?limit=2&other=x", []string{"2PPG", "2PPC", "2PP9", "2PP8", "2PP2", "2PP0"}},
	} {
		t.Run(tt.path, func(t *testing.T) {
			if got := getList(t, h, key, tt.path); !slices.Equal(got, tt.want) {
				t.Fatalf("tags %v, want %v", got, tt.want)
			}
		})
	}
}

func TestTournamentFilterValues(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("71")
	for _, list := range []string{"known", "1k", "full", "open", "inprep", "joinable"} {
		for _, filter := range []string{"1k", "open", "full", "inprep", "joinable"} {
			for _, value := range []string{"2", "-1", "yes", "", "01", "1.0", "%201"} {
				path := "/tournaments/" + list + "?" + filter + "=" + value
				t.Run(path, func(t *testing.T) {
					expectError(t, h.get(path, "auth", key), http.StatusBadRequest, "invalid value for '"+filter+"': must be 0 or 1")
				})
			}
		}
	}
	// The first bad filter in the fixed order is the one named.
	expectError(t, h.get("/tournaments/known?joinable=x&open=x", "auth", key), http.StatusBadRequest, "invalid value for 'open': must be 0 or 1")
}

func TestTournamentListsAreNewestFirstAndAtMostAHundred(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("72")
	start := h.clock.Now().Add(-time.Hour)
	for n := range 130 {
		tag := "2" + strings.Repeat("P", n/10) + string("0289CGJLPQ"[n%10])
		details := models.TournamentDetails{
			Tag: tag, Type: models.TournamentTypeOpen, Status: models.TournamentInPreparation, Name: tag,
			Capacity: 1, MaxCapacity: 50, PreparationDuration: 3600, Duration: 3600, CreatedTime: start,
		}
		if err := h.tournaments.SaveLookedUpTournament(t.Context(), details, start.Add(time.Duration(n*7%130)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	var items []models.TournamentListItem
	decodeJSON(t, h.get("/tournaments/joinable", "auth", key), &items)
	if len(items) != models.MaxTournamentListLength {
		t.Fatalf("%d elements, want %d", len(items), models.MaxTournamentListLength)
	}
	newest := start.Add(129 * time.Second).Unix()
	for i, item := range items {
		if item.UpdatedAt != newest-int64(i) {
			t.Fatalf("element %d updated at %d, want %d (newest first)", i, item.UpdatedAt, newest-int64(i))
		}
	}
}

func TestTournamentListHasAnETag(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("73")
	empty := h.get("/tournaments/known", "auth", key)
	if body := readBody(t, empty); empty.StatusCode != http.StatusOK || string(body) != "[]" || empty.Header.Get("ETag") == "" {
		t.Fatalf("no tournament known: status %d, body %s, ETag %q", empty.StatusCode, body, empty.Header.Get("ETag"))
	}
	storeListFixtures(t, h)
	first := h.get("/tournaments/open?full=0", "auth", key)
	etag := first.Header.Get("ETag")
	if first.StatusCode != http.StatusOK || etag == "" {
		t.Fatalf("status %d, ETag %q", first.StatusCode, etag)
	}
	if resp := h.get("/tournaments/open?full=0", "auth", key, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match with the ETag: status %d, want 304", resp.StatusCode)
	}
	// Another sighting changes the list and its ETag.
	details := models.TournamentDetails{Tag: "2PPQ", Type: models.TournamentTypeOpen, Status: models.TournamentInPreparation,
		Name: "new", Capacity: 1, MaxCapacity: 50, CreatedTime: h.clock.Now()}
	if err := h.tournaments.SaveLookedUpTournament(t.Context(), details, h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	changed := h.get("/tournaments/open?full=0", "auth", key, "If-None-Match", etag)
	if changed.StatusCode != http.StatusOK || changed.Header.Get("ETag") == etag {
		t.Fatalf("after a change: status %d, ETag %q (was %q)", changed.StatusCode, changed.Header.Get("ETag"), etag)
	}
}
