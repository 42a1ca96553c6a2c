package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// JSON types of the list elements' fields, as the contract gives them.
// startTime and endTime are timeOrNull: checked against the status.
const (
	jsonString = "string"
	jsonBool   = "boolean"
	jsonNumber = "number"
	jsonArray  = "array"
	timeOrNull = "number, or null until reached"
)

// knownFields is the element of the known, open and joinable lists.
var knownFields = map[string]string{
	"tag": jsonString, "open": jsonBool, "status": jsonString, "name": jsonString, "currentPlayers": jsonNumber,
	"maxPlayers": jsonNumber, "prepTime": jsonNumber, "duration": jsonNumber, "createTime": jsonNumber,
	"startTime": timeOrNull, "endTime": timeOrNull,
}

// listFields is the exact field set of each list's elements with each
// field's JSON type.
var listFields = map[string]map[string]string{
	"known": knownFields,
	"open":  knownFields,
	"1k": {
		"tag": jsonString, "name": jsonString, "open": jsonBool, "currentPlayers": jsonNumber, "status": jsonString,
		"createTime": jsonNumber, "prepTime": jsonNumber, "startTime": timeOrNull, "endTime": timeOrNull,
		"duration": jsonNumber, "description": jsonString, "updatedAt": jsonNumber, "maxCapacity": jsonNumber,
	},
	"full": {
		"tag": jsonString, "name": jsonString, "open": jsonBool, "maxPlayers": jsonNumber, "currentPlayers": jsonNumber,
		"status": jsonString, "createTime": jsonNumber, "prepTime": jsonNumber, "startTime": timeOrNull,
		"endTime": timeOrNull, "duration": jsonNumber, "description": jsonString, "updatedAt": jsonNumber,
		"members": jsonArray,
	},
	"inprep": {
		"tag": jsonString, "open": jsonBool, "status": jsonString, "name": jsonString, "currentPlayers": jsonNumber,
		"maxCapacity": jsonNumber, "prepTime": jsonNumber, "duration": jsonNumber, "createTime": jsonNumber,
		"startTime": timeOrNull, "endTime": timeOrNull,
	},
	"joinable": knownFields,
}

// tournamentListNames are the six lists; tournamentFilterNames their
// query filters.
var (
	tournamentListNames   = []string{"known", "1k", "full", "open", "inprep", "joinable"}
	tournamentFilterNames = []string{"1k", "open", "full", "inprep", "joinable"}
)

// listFixture is one stored tournament of the list tests; requested ones
// were looked up by a client, the others only found and refreshed by the
// scheduler.
type listFixture struct {
	tag, kind, status string
	players, places   int
	requested         bool
}

// listFixtures are stored in this order, each seen a minute after the one
// before, so the lists answer them last first.
//
//	2PP0 open     1000/1000 inPreparation  known 1k full open inprep
//	2PP2 open       10/1000 inProgress     known 1k open joinable
//	2PP8 password     50/50 inProgress     known full
//	2PP9 password    3/1000 inPreparation  known 1k inprep
//	2PPC open       20/100  ended          known open
//	2PPG open        5/50   inPreparation  known open inprep joinable
//	2PPJ open       10/1000 inPreparation  1k open inprep joinable (found by the scheduler only)
var listFixtures = []listFixture{
	{"2PP0", models.TournamentTypeOpen, models.TournamentInPreparation, 1000, 1000, true},
	{"2PP2", models.TournamentTypeOpen, models.TournamentInProgress, 10, 1000, true},
	{"2PP8", models.TournamentTypePasswordProtected, models.TournamentInProgress, 50, 50, true},
	{"2PP9", models.TournamentTypePasswordProtected, models.TournamentInPreparation, 3, 1000, true},
	{"2PPC", models.TournamentTypeOpen, models.TournamentEnded, 20, 100, true},
	{"2PPG", models.TournamentTypeOpen, models.TournamentInPreparation, 5, 50, true},
	{"2PPJ", models.TournamentTypeOpen, models.TournamentInPreparation, 10, 1000, false},
}

// meets says, independently of the SQL, whether the fixture is in the
// list (or passes the filter) of that name.
func (f listFixture) meets(name string) bool {
	open, full := f.kind == models.TournamentTypeOpen, f.players >= f.places
	switch name {
	case "known":
		return f.requested
	case "1k":
		return f.places == 1000
	case "full":
		return full
	case "open":
		return open
	case "inprep":
		return f.status == models.TournamentInPreparation
	case "joinable":
		return open && !full && f.status != models.TournamentEnded
	}
	panic("unknown list " + name)
}

// storeListFixtures saves listFixtures, created two hours before the
// harness clock, started an hour later when started, ended half an hour
// after that when ended: the requested ones as a lookup through the API
// saves them, the others as the scheduler's search and refresh do.
func storeListFixtures(t testing.TB, h *harness) {
	t.Helper()
	created := h.clock.Now().Add(-2 * time.Hour)
	for i, f := range listFixtures {
		details := models.TournamentDetails{
			Tag: f.tag, Type: f.kind, Status: f.status, Name: "Cup " + f.tag, Description: "about " + f.tag,
			Capacity: f.players, MaxCapacity: f.places, PreparationDuration: 3600, Duration: 1800, CreatedTime: created,
		}
		if f.status != models.TournamentInPreparation {
			details.StartedTime = created.Add(time.Hour)
		}
		if f.status == models.TournamentEnded {
			details.EndedTime = created.Add(90 * time.Minute)
		}
		seen := created.Add(time.Duration(i) * time.Minute)
		var err error
		if f.requested {
			err = h.tournaments.SaveRequestedTournament(t.Context(), details, seen)
		} else if err = h.tournaments.SaveDiscoveredTournaments(t.Context(), []models.TournamentDetails{details}, seen); err == nil {
			err = h.tournaments.SaveLookedUpTournament(t.Context(), details, seen)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// listName is the list a /tournaments/<list>?... path asks for.
func listName(path string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(path, "/tournaments/"), "?")
	return name
}

// getList asks for a list, checks every element's exact field set and
// each field's JSON type, its start and end times against its status
// (when known), and returns the elements' tags.
func getList(t *testing.T, h *harness, key, path string) []string {
	t.Helper()
	var elements []map[string]any
	decodeJSON(t, h.get(path, "auth", key), &elements)
	fields := listFields[listName(path)]
	wantKeys := slices.Sorted(func(yield func(string) bool) {
		for k := range fields {
			if !yield(k) {
				return
			}
		}
	})
	tags := make([]string, len(elements))
	for i, element := range elements {
		if keys := keysOf(element); !slices.Equal(keys, wantKeys) {
			t.Fatalf("%s: element keys %v, want %v", path, keys, wantKeys)
		}
		for field, want := range fields {
			if got := jsonTypeOf(element[field]); got != want && (want != timeOrNull || got != jsonNumber && got != "null") {
				t.Fatalf("%s: %s of %v is a %s, want a %s", path, field, element["tag"], got, want)
			}
		}
		// An unknown status says nothing of the times: either may be given.
		started, ended := element["status"] != models.TournamentInPreparation, element["status"] == models.TournamentEnded
		if element["status"] != models.TournamentStatusUnknown && ((element["startTime"] != nil) != started || (element["endTime"] != nil) != ended) {
			t.Fatalf("%s: %s %s with startTime %v, endTime %v", path, element["tag"], element["status"], element["startTime"], element["endTime"])
		}
		tags[i] = element["tag"].(string)
	}
	return tags
}

// jsonTypeOf names the JSON type of a decoded value.
func jsonTypeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return jsonString
	case bool:
		return jsonBool
	case float64:
		return jsonNumber
	case []any:
		return jsonArray
	}
	return "object"
}

// eachEngineHarness runs fn with a tournament harness on each engine.
func eachEngineHarness(t *testing.T, fn func(t *testing.T, h *harness)) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			fn(t, newHarness(t, harnessOptions{engine: engine, config: func(c *api.Config) { c.Tournaments = true }}))
		})
	}
}

func TestTournamentListsAndFilters(t *testing.T) {
	eachEngineHarness(t, func(t *testing.T, h *harness) {
		key := h.issue("70")
		storeListFixtures(t, h)
		for _, tt := range []struct {
			path string
			want []string
		}{
			{"/tournaments/known", []string{"2PPG", "2PPC", "2PP9", "2PP8", "2PP2", "2PP0"}},
			{"/tournaments/1k", []string{"2PPJ", "2PP9", "2PP2", "2PP0"}},
			{"/tournaments/full", []string{"2PP8", "2PP0"}},
			{"/tournaments/open", []string{"2PPJ", "2PPG", "2PPC", "2PP2", "2PP0"}},
			{"/tournaments/inprep", []string{"2PPJ", "2PPG", "2PP9", "2PP0"}},
			{"/tournaments/joinable", []string{"2PPJ", "2PPG", "2PP2"}},

			{"/tournaments/known?1k=1", []string{"2PP9", "2PP2", "2PP0"}},
			{"/tournaments/known?open=1", []string{"2PPG", "2PPC", "2PP2", "2PP0"}},
			{"/tournaments/known?full=1", []string{"2PP8", "2PP0"}},
			{"/tournaments/known?inprep=1", []string{"2PPG", "2PP9", "2PP0"}},
			{"/tournaments/known?joinable=1", []string{"2PPG", "2PP2"}},

			{"/tournaments/known?open=1&inprep=1", []string{"2PPG", "2PP0"}},
			{"/tournaments/known?1k=1&inprep=1", []string{"2PP9", "2PP0"}},
			{"/tournaments/known?1k=1&inprep=1&open=1&full=1", []string{"2PP0"}},
			{"/tournaments/known?1k=1&inprep=1&open=0&full=0&joinable=0", []string{"2PP9", "2PP0"}},
			{"/tournaments/1k?open=1", []string{"2PPJ", "2PP2", "2PP0"}},
			{"/tournaments/open?joinable=1", []string{"2PPJ", "2PPG", "2PP2"}},
			{"/tournaments/joinable?1k=1", []string{"2PPJ", "2PP2"}},
			{"/tournaments/inprep?joinable=1&1k=1", []string{"2PPJ"}},
			{"/tournaments/full?joinable=1", []string{}},
			{"/tournaments/full?open=1&inprep=1", []string{"2PP0"}},
			{"/tournaments/known?limit=2&other=x", []string{"2PPG", "2PPC", "2PP9", "2PP8", "2PP2", "2PP0"}},
		} {
			t.Run(tt.path, func(t *testing.T) {
				if got := getList(t, h, key, tt.path); !slices.Equal(got, tt.want) {
					t.Fatalf("tags %v, want %v", got, tt.want)
				}
			})
		}
	})
}

// Every filter on every list: 0 answers exactly what leaving it out
// answers, 1 keeps the list's tournaments that pass the filter.
func TestEveryTournamentFilterAtZeroAndOne(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("74")
	storeListFixtures(t, h)
	for _, list := range tournamentListNames {
		unfiltered := h.get("/tournaments/"+list, "auth", key)
		unfilteredBody := readBody(t, unfiltered)
		for _, filter := range tournamentFilterNames {
			t.Run(list+"?"+filter+"=0", func(t *testing.T) {
				resp := h.get("/tournaments/"+list+"?"+filter+"=0", "auth", key)
				if body := readBody(t, resp); resp.StatusCode != http.StatusOK || string(body) != string(unfilteredBody) {
					t.Fatalf("status %d, body %s\nwithout the filter: %s", resp.StatusCode, body, unfilteredBody)
				}
			})
			t.Run(list+"?"+filter+"=1", func(t *testing.T) {
				want := []string{}
				for _, f := range slices.Backward(listFixtures) {
					if f.meets(list) && f.meets(filter) {
						want = append(want, f.tag)
					}
				}
				if got := getList(t, h, key, "/tournaments/"+list+"?"+filter+"=1"); !slices.Equal(got, want) {
					t.Fatalf("tags %v, want %v", got, want)
				}
			})
		}
		allZero := "/tournaments/" + list + "?1k=0&open=0&full=0&inprep=0&joinable=0"
		if resp := h.get(allZero, "auth", key); string(readBody(t, resp)) != string(unfilteredBody) {
			t.Errorf("%s differs from no filter", allZero)
		}
	}
}

func TestTournamentFilterValues(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("71")
	for _, list := range tournamentListNames {
		for _, filter := range tournamentFilterNames {
			for _, value := range []string{"2", "x", "-1", "yes", "true", "", "00", "01", "1.0", "%201"} {
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

func TestTournamentFilterGivenTwice(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("73")
	for _, list := range tournamentListNames {
		for _, filter := range tournamentFilterNames {
			for _, tt := range []struct{ query, text string }{
				// A bad value is refused wherever it stands.
				{filter + "=1&" + filter + "=2", "must be 0 or 1"},
				{filter + "=2&" + filter + "=1", "must be 0 or 1"},
				{filter + "=0&" + filter + "=", "must be 0 or 1"},
				// Two good values that disagree name no filter setting.
				{filter + "=0&" + filter + "=1", "given more than once with different values"},
				{filter + "=1&open=0&" + filter + "=0", "given more than once with different values"},
			} {
				path := "/tournaments/" + list + "?" + tt.query
				t.Run(path, func(t *testing.T) {
					expectError(t, h.get(path, "auth", key), http.StatusBadRequest, "invalid value for '"+filter+"': "+tt.text)
				})
			}
			once := string(readBody(t, h.get("/tournaments/"+list+"?"+filter+"=1", "auth", key)))
			twice := h.get("/tournaments/"+list+"?"+filter+"=1&"+filter+"=1", "auth", key)
			if twice.StatusCode != http.StatusOK || string(readBody(t, twice)) != once {
				t.Errorf("%s=1 given twice: %d, not the answer of %s=1", filter, twice.StatusCode, filter)
			}
		}
	}
}

func TestTournamentListsAreNewestFirstAndAtMostAHundred(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("72")
	start := h.clock.Now().Add(-time.Hour)
	for n := range 130 {
		tag := "2" + strings.Repeat("P", n/10) + string("0289CGJLPQ"[n%10])
		details := models.TournamentDetails{
			Tag: tag, Type: models.TournamentTypeOpen, Status: models.TournamentInPreparation, Name: tag,
			Capacity: 1, MaxCapacity: 1000, PreparationDuration: 3600, Duration: 3600, CreatedTime: start,
		}
		if err := h.tournaments.SaveRequestedTournament(t.Context(), details, start.Add(time.Duration(n*7%130)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	var items []legacy.ThousandTournament
	decodeJSON(t, h.get("/tournaments/1k", "auth", key), &items)
	if len(items) != models.MaxTournamentListLength {
		t.Fatalf("%d elements, want %d", len(items), models.MaxTournamentListLength)
	}
	newest := start.Add(129 * time.Second).Unix()
	tags := make([]string, len(items))
	for i, item := range items {
		if item.UpdatedAt != newest-int64(i) {
			t.Fatalf("element %d updated at %d, want %d (newest first)", i, item.UpdatedAt, newest-int64(i))
		}
		tags[i] = item.Tag
	}
	// The lists without updatedAt hold the same tournaments in the same
	// order.
	for _, list := range []string{"known", "open", "inprep", "joinable"} {
		if got := getList(t, h, key, "/tournaments/"+list); !slices.Equal(got, tags) {
			t.Fatalf("%s: %v\nwant %v", list, got, tags)
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
	first := h.get("/tournaments/open?inprep=1", "auth", key)
	etag := first.Header.Get("ETag")
	if first.StatusCode != http.StatusOK || etag == "" {
		t.Fatalf("status %d, ETag %q", first.StatusCode, etag)
	}
	if resp := h.get("/tournaments/open?inprep=1", "auth", key, "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match with the ETag: status %d, want 304", resp.StatusCode)
	}
	// Another sighting changes the list and its ETag.
	details := models.TournamentDetails{Tag: "2PPQ", Type: models.TournamentTypeOpen, Status: models.TournamentInPreparation,
		Name: "new", Capacity: 1, MaxCapacity: 50, CreatedTime: h.clock.Now()}
	if err := h.tournaments.SaveRequestedTournament(t.Context(), details, h.clock.Now()); err != nil {
		t.Fatal(err)
	}
	changed := h.get("/tournaments/open?inprep=1", "auth", key, "If-None-Match", etag)
	if changed.StatusCode != http.StatusOK || changed.Header.Get("ETag") == etag {
		t.Fatalf("after a change: status %d, ETag %q (was %q)", changed.StatusCode, changed.Header.Get("ETag"), etag)
	}
}

// A tournament only found by the scheduler's search (no start or end
// time) is listed with the times it was due once seen started or ended,
// in every list; the refresher's lookup replaces them with the game's,
// and a later search does not bring them back.
func TestSearchedTournamentsAreListedWithTimes(t *testing.T) {
	eachEngineHarness(t, func(t *testing.T, h *harness) {
		key := h.issue("75")
		now := h.clock.Now()
		searched := func(tag, status string, created time.Time) models.TournamentDetails {
			return models.TournamentDetails{
				Tag: tag, Type: models.TournamentTypeOpen, Status: status, Name: "Cup " + tag, Description: "about " + tag,
				Capacity: 5, MaxCapacity: 1000, PreparationDuration: 3600, Duration: 1800, CreatedTime: created,
			}
		}
		running := searched("2PUJ", models.TournamentInProgress, now.Add(-80*time.Minute))
		ended := searched("2PUL", models.TournamentEnded, now.Add(-3*time.Hour))
		search := func(at time.Time) {
			t.Helper()
			if err := h.tournaments.SaveDiscoveredTournaments(t.Context(), []models.TournamentDetails{running, ended}, at); err != nil {
				t.Fatal(err)
			}
		}
		listed := func(step string, want map[string][2]time.Time) {
			t.Helper()
			for _, list := range tournamentListNames {
				getList(t, h, key, "/tournaments/"+list) // every started one has a startTime, every ended one an endTime
			}
			var items []legacy.ThousandTournament
			decodeJSON(t, h.get("/tournaments/1k", "auth", key), &items)
			if len(items) != len(want) {
				t.Fatalf("%s: %d tournaments listed, want %d", step, len(items), len(want))
			}
			for _, item := range items {
				times := want[item.Tag]
				if !sameSeconds(item.StartTime, times[0]) || !sameSeconds(item.EndTime, times[1]) {
					t.Errorf("%s: %s listed with startTime %v, endTime %v; want %v, %v", step, item.Tag, item.StartTime, item.EndTime, times[0], times[1])
				}
			}
		}

		search(now)
		dueStart := func(d models.TournamentDetails) time.Time { return d.CreatedTime.Add(time.Hour) }
		listed("found by search", map[string][2]time.Time{
			"2PUJ": {dueStart(running)},
			"2PUL": {dueStart(ended), dueStart(ended).Add(30 * time.Minute)},
		})

		lookedUpRunning, lookedUpEnded := running, ended
		lookedUpRunning.StartedTime = dueStart(running).Add(17 * time.Second)
		lookedUpEnded.StartedTime = dueStart(ended).Add(17 * time.Second)
		lookedUpEnded.EndedTime = lookedUpEnded.StartedTime.Add(31 * time.Minute)
		for _, d := range []models.TournamentDetails{lookedUpRunning, lookedUpEnded} {
			if err := h.tournaments.SaveLookedUpTournament(t.Context(), d, now.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		lookedUp := map[string][2]time.Time{
			"2PUJ": {lookedUpRunning.StartedTime},
			"2PUL": {lookedUpEnded.StartedTime, lookedUpEnded.EndedTime},
		}
		listed("looked up", lookedUp)
		search(now.Add(2 * time.Minute))
		listed("found by search again", lookedUp)
	})
}

// sameSeconds says whether seconds (nil for none) is want (zero for none).
func sameSeconds(seconds *int64, want time.Time) bool {
	if seconds == nil || want.IsZero() {
		return seconds == nil && want.IsZero()
	}
	return *seconds == want.Unix()
}
