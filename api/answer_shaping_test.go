package api_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

// shapingFixture is a harness with tournaments on and something on every
// route: a tracked clan with two snapshots, the list fixtures, two
// tournaments looked up.
type shapingFixture struct {
	h                     *harness
	key                   string
	clan, player          string
	tournament, secondTag string
}

func newShapingFixture(t testing.TB) shapingFixture {
	t.Helper()
	h := newTournamentHarness(t)
	f := shapingFixture{h: h, key: h.issue("90"), clan: h.world.TrackableClanTags()[0], player: h.world.PlayerTags()[0],
		tournament: h.world.TournamentTags()[0], secondTag: h.world.TournamentTags()[1]}
	if resp := h.get("/clan/"+f.clan+"/track", "auth", f.key); resp.StatusCode != http.StatusOK {
		t.Fatalf("track: %d %s", resp.StatusCode, readBody(t, resp))
	}
	tracked, err := h.clans.TrackedClan(t.Context(), f.clan)
	if err != nil {
		t.Fatal(err)
	}
	earlier := models.ClanDetails{Tag: f.clan, Score: 41234, Members: []models.ClanMember{
		{Tag: "2PP", Name: "first", ClanRank: 1, Trophies: 5000, Donations: 10},
		{Tag: "2PY", Name: "second", ClanRank: 2, Trophies: 4900, Donations: 20},
	}}
	if _, err := h.clans.SaveSnapshots(t.Context(), tracked.ID, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(earlier, h.clock.Now().Add(-24*time.Hour).Truncate(4*time.Hour))}); err != nil {
		t.Fatal(err)
	}
	storeListFixtures(t, h)
	return f
}

// decoded is the decoded body of a 200 answer.
func decoded(t *testing.T, resp *http.Response) any {
	t.Helper()
	var v any
	decodeJSON(t, resp, &v)
	return v
}

// pick keeps the named fields of an object, of each element of an array.
func pick(v any, names ...string) any {
	return eachObject(v, func(object map[string]any) map[string]any {
		out := map[string]any{}
		for _, name := range names {
			if value, ok := object[name]; ok {
				out[name] = value
			}
		}
		return out
	})
}

// omit drops the named fields of an object, of each element of an array.
func omit(v any, names ...string) any {
	return eachObject(v, func(object map[string]any) map[string]any {
		out := map[string]any{}
		for name, value := range object {
			out[name] = value
		}
		for _, name := range names {
			delete(out, name)
		}
		return out
	})
}

// within applies fn to field of an object, of each element of an array.
func within(v any, field string, fn func(any) any) any {
	return eachObject(v, func(object map[string]any) map[string]any {
		out := map[string]any{}
		for name, value := range object {
			out[name] = value
		}
		if value, ok := out[field]; ok {
			out[field] = fn(value)
		}
		return out
	})
}

// eachObject applies fn to an object, or to each object of an array.
func eachObject(v any, fn func(map[string]any) map[string]any) any {
	switch v := v.(type) {
	case map[string]any:
		return fn(v)
	case []any:
		out := make([]any, len(v))
		for i, element := range v {
			out[i] = eachObject(element, fn)
		}
		return out
	}
	return v
}

// eachSlot applies fn to the value of each slot of a history answer.
func eachSlot(v any, fn func(any) any) any {
	out := map[string]any{}
	for slot, snapshot := range v.(map[string]any) {
		out[slot] = fn(snapshot)
	}
	return out
}

// window is elements [from, to) of an array, clamped to its length.
func window(v any, from, to int) any {
	elements := v.([]any)
	from, to = min(from, len(elements)), min(to, len(elements))
	return append([]any{}, elements[from:to]...)
}

// with is path with the query parameters query added.
func with(path, query string) string {
	if strings.Contains(path, "?") {
		return path + "&" + query
	}
	return path + "?" + query
}

func TestKeysExcludeMaxAndPageOnEachRoute(t *testing.T) {
	f := newShapingFixture(t)
	search := "/clan/search?name=royal&limit=20"
	battles := "/player/" + f.player + "/battles"
	list := "/tournaments/known"
	history := "/clan/" + f.clan + "/history"
	tracking := "/clan/" + f.clan + "/tracking"
	tournament := "/tournament/" + f.tournament
	tournaments := "/tournament/" + f.tournament + "," + f.secondTag
	keepDeck := func(v any) any { return pick(v, "deck") }
	dropDeck := func(v any) any { return omit(v, "deck") }
	tests := []struct {
		path, query string
		want        func(full any) any
	}{
		{search, "keys=tag,name", func(v any) any { return pick(v, "tag", "name") }},
		{search, "exclude=badge,location", func(v any) any { return omit(v, "badge", "location") }},
		{search, "keys=tag&keys=name", func(v any) any { return pick(v, "tag", "name") }}, // given twice: joined
		{search, "keys=tag,badge.name", func(v any) any {
			return within(pick(v, "tag", "badge"), "badge", func(v any) any { return pick(v, "name") })
		}},
		{search, "max=3&page=1", func(v any) any { return window(v, 3, 6) }},
		{search, "page=1&max=3&keys=tag", func(v any) any { return pick(window(v, 3, 6), "tag") }},
		{search, "max=7", func(v any) any { return window(v, 0, 7) }},
		{search, "max=100", func(v any) any { return v }},
		{search, "page=1", func(any) any { return []any{} }}, // max defaults to 100
		{search, "max=20&page=1", func(any) any { return []any{} }},
		{search, "max=100&page=1000000", func(any) any { return []any{} }},

		{battles, "keys=type,team.deck", func(v any) any { return within(pick(v, "type", "team"), "team", keepDeck) }},
		{battles, "exclude=team.deck,opponent", func(v any) any { return within(omit(v, "opponent"), "team", dropDeck) }},
		{battles, "keys=type,nosuch,team.nosuch", func(v any) any {
			return within(pick(v, "type", "team"), "team", func(v any) any { return pick(v) })
		}},
		{battles, "exclude=nosuch,team.deck.nosuch", func(v any) any { return v }},
		{battles, "exclude=team.deck&exclude=&exclude=opponent", func(v any) any { return within(omit(v, "opponent"), "team", dropDeck) }},
		{battles, "keys=team,team.deck", func(v any) any { return pick(v, "team") }}, // team named whole
		{battles, "keys=%20type%20,,.,a..b", func(v any) any { return pick(v, "type") }},
		{battles, "keys=&exclude=", func(v any) any { return v }},
		{battles, "max=10&page=2", func(v any) any { return window(v, 20, 30) }},
		{battles, "max=25&page=1", func(any) any { return []any{} }},

		{list, "keys=tag,name", func(v any) any { return pick(v, "tag", "name") }},
		{list, "exclude=name,startTime", func(v any) any { return omit(v, "name", "startTime") }},
		{list, "max=2&page=1", func(v any) any { return window(v, 2, 4) }},
		{list, "max=2&page=1&exclude=tag", func(v any) any { return omit(window(v, 2, 4), "tag") }},
		{list, "page=1", func(any) any { return []any{} }},
		{"/tournaments/full", "max=1&page=1&keys=tag", func(v any) any { return pick(window(v, 1, 2), "tag") }},

		{history, "keys=score", func(v any) any { return eachSlot(v, func(v any) any { return pick(v, "score") }) }},
		{history, "exclude=members", func(v any) any { return eachSlot(v, func(v any) any { return omit(v, "members") }) }},
		{history, "keys=score,members.name", func(v any) any {
			return eachSlot(v, func(v any) any {
				return within(pick(v, "score", "members"), "members", func(v any) any { return pick(v, "name") })
			})
		}},
		{history, "max=1&page=3", func(v any) any { return v }}, // not a paged route: ignored

		{tracking, "keys=tag,active,nosuch", func(v any) any { return pick(v, "tag", "active") }},
		{tracking, "exclude=snapshotCount", func(v any) any { return omit(v, "snapshotCount") }},

		{tournament, "keys=tag,name,creator.tag", func(v any) any {
			return within(pick(v, "tag", "name", "creator"), "creator", func(v any) any { return pick(v, "tag") })
		}},
		{tournament, "exclude=members,description", func(v any) any { return omit(v, "members", "description") }},
		{tournaments, "keys=tag", func(v any) any { return pick(v, "tag") }},
	}
	for _, tt := range tests {
		t.Run(tt.path+"?"+tt.query, func(t *testing.T) {
			full := decoded(t, f.h.get(tt.path, "auth", f.key))
			if elements, ok := full.([]any); ok && len(elements) < 2 {
				t.Fatalf("the fixture gives %d elements at %s: too few to tell", len(elements), tt.path)
			}
			got := decoded(t, f.h.get(with(tt.path, tt.query), "auth", f.key))
			if want := tt.want(full); !reflect.DeepEqual(got, want) {
				t.Fatalf("got  %v\nwant %v", got, want)
			}
		})
	}
}

func TestWeeklyHistoryRefusalIsNotShaped(t *testing.T) {
	f := newShapingFixture(t)
	expectError(t, f.h.get("/clan/"+f.clan+"/history/weekly?keys=score", "auth", f.key),
		http.StatusExpectationFailed, "weekly history not enabled for this clan")
	expectError(t, f.h.get("/clan/search?keys=tag&max=2", "auth", f.key),
		http.StatusBadRequest, "at least one filter is required: name, score, minMembers or locationId")
}

func TestShapedFieldsKeepTheAnswersOrder(t *testing.T) {
	f := newShapingFixture(t)
	resp := f.h.get("/clan/"+f.clan+"/tracking?keys=snapshotCount,tag,active", "auth", f.key)
	want := `{"tag":"` + f.clan + `","active":true,"snapshotCount":2}`
	if body := readBody(t, resp); resp.StatusCode != http.StatusOK || string(body) != want {
		t.Fatalf("status %d, body %s, want %s", resp.StatusCode, body, want)
	}
}

func TestBadMaxAndPage(t *testing.T) {
	f := newShapingFixture(t)
	routes := []string{"/clan/search?name=royal", "/player/" + f.player + "/battles", "/tournaments/open"}
	for _, tt := range []struct{ query, text string }{
		{"max=0", "invalid value for 'max': must be between 1 and 100"},
		{"max=101", "invalid value for 'max': must be between 1 and 100"},
		{"max=-3", "invalid value for 'max': must be between 1 and 100"},
		{"max=ten", "invalid value for 'max': not a whole number"},
		{"max=", "invalid value for 'max': not a whole number"},
		{"page=-1", "invalid value for 'page': must be between 0 and 1000000"},
		{"page=1000001", "invalid value for 'page': must be between 0 and 1000000"},
		{"page=1.5", "invalid value for 'page': not a whole number"},
		{"max=5&page=x", "invalid value for 'page': not a whole number"},
		// Given twice, every value is checked, whichever comes first, and
		// two valid values must agree.
		{"max=5&max=500", "invalid value for 'max': must be between 1 and 100"},
		{"max=500&max=5", "invalid value for 'max': must be between 1 and 100"},
		{"max=3&max=0", "invalid value for 'max': must be between 1 and 100"},
		{"max=5&max=7", "invalid value for 'max': given more than once with different values"},
		{"page=0&max=5&page=1", "invalid value for 'page': given more than once with different values"},
	} {
		for _, route := range routes {
			t.Run(with(route, tt.query), func(t *testing.T) {
				expectError(t, f.h.get(with(route, tt.query), "auth", f.key), http.StatusBadRequest, tt.text)
			})
		}
	}
	if n := f.h.upstream.count("/v1/clans") + f.h.upstream.count("/v1/players/%23"+f.player+"/battlelog"); n != 0 {
		t.Fatalf("bad paging reached the game API %d times, want 0", n)
	}
}

func TestShapedAnswersLeaveTheCachedAnswerWhole(t *testing.T) {
	f := newShapingFixture(t)
	path := "/player/" + f.player + "/battles"
	first := f.h.get(path, "auth", f.key)
	firstBody, firstTag := readBody(t, first), first.Header.Get("ETag")
	if first.StatusCode != http.StatusOK || first.Header.Get("x-cached") != "" {
		t.Fatalf("first: status %d, x-cached %q", first.StatusCode, first.Header.Get("x-cached"))
	}

	shaped := f.h.get(path+"?keys=type,team.name&max=5", "auth", f.key)
	expectHeader(t, shaped, "x-cached", "true")
	shapedTag := shaped.Header.Get("ETag")
	var battles []map[string]any
	decodeJSON(t, shaped, &battles)
	if len(battles) != 5 || len(battles[0]) != 2 || battles[0]["type"] == nil || len(battles[0]["team"].([]any)[0].(map[string]any)) != 1 {
		t.Fatalf("shaped answer %v, want 5 battles of type and team names", battles)
	}
	if shapedTag == "" || shapedTag == firstTag {
		t.Fatalf("shaped ETag %q, the whole answer's %q: want another", shapedTag, firstTag)
	}
	if resp := f.h.get(path+"?keys=type,team.name&max=5", "auth", f.key, "If-None-Match", shapedTag); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match with the shaped ETag: status %d, want 304", resp.StatusCode)
	}
	if resp := f.h.get(path, "auth", f.key, "If-None-Match", shapedTag); resp.StatusCode != http.StatusOK {
		t.Fatalf("the whole answer with the shaped ETag: status %d, want 200", resp.StatusCode)
	}

	again := f.h.get(path, "auth", f.key)
	expectHeader(t, again, "x-cached", "true")
	expectHeader(t, again, "ETag", firstTag)
	if !bytes.Equal(readBody(t, again), firstBody) {
		t.Fatal("the whole answer changed after a shaped one")
	}
	if n := f.h.upstream.count("/v1/players/%23" + f.player + "/battlelog"); n != 1 {
		t.Fatalf("the game API was asked %d times, want 1", n)
	}

	// History answers, cached per clan, likewise.
	history := "/clan/" + f.clan + "/history"
	whole := readBody(t, f.h.get(history, "auth", f.key))
	if body := readBody(t, f.h.get(history+"?keys=score", "auth", f.key)); bytes.Equal(body, whole) || !bytes.Contains(body, []byte(`{"score":41234}`)) {
		t.Fatalf("shaped history %s", body)
	}
	if body := readBody(t, f.h.get(history, "auth", f.key)); !bytes.Equal(body, whole) {
		t.Fatalf("the whole history changed after a shaped one:\n%s\nwas\n%s", body, whole)
	}
}

func TestShapedAnswersInGzip(t *testing.T) {
	f := newShapingFixture(t)
	path := "/player/" + f.player + "/battles"
	whole := f.h.get(path, "auth", f.key)
	wholeBody := readBody(t, whole)
	for _, tt := range []struct {
		query string
		want  func(full any) any
	}{
		{"exclude=nosuch", func(v any) any { return v }},
		{"exclude=opponent&max=20", func(v any) any { return omit(window(v, 0, 20), "opponent") }},
	} {
		t.Run(tt.query, func(t *testing.T) {
			resp := f.h.get(path+"?"+tt.query, "auth", f.key, "Accept-Encoding", "gzip")
			expectHeader(t, resp, "Content-Encoding", "gzip")
			zr, err := gzip.NewReader(bytes.NewReader(readBody(t, resp)))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			var got, full any
			if err := json.Unmarshal(plain, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(wholeBody, &full); err != nil {
				t.Fatal(err)
			}
			if want := tt.want(full); !reflect.DeepEqual(got, want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
		})
	}
	// Shaping that removes nothing gives the very bytes.
	if body := readBody(t, f.h.get(path+"?exclude=nosuch", "auth", f.key)); !bytes.Equal(body, wholeBody) {
		t.Fatal("exclude of an unknown field changed the answer's bytes")
	}
}
