package api_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/upstream/official"
)

// Tags the sandbox does not know: valid tags of another length than its
// tournaments'.
const (
	unknownTournamentA = "2PPCC"
	unknownTournamentB = "2PPCCQ"
)

// tournamentKeys is the field set of GET /tournament/:tag's object: the
// seed's, and the real legacy answer's type, capacity, maxCapacity and
// preparationDuration.
var tournamentKeys = []string{"tag", "open", "status", "name", "description", "maxPlayers", "prepTime", "duration",
	"endedTime", "startTime", "createTime", "creator", "members",
	"type", "capacity", "maxCapacity", "preparationDuration"}

// newTournamentHarness is a harness with tournaments switched on.
func newTournamentHarness(t testing.TB) *harness {
	t.Helper()
	return newHarness(t, harnessOptions{config: func(c *api.Config) { c.Tournaments = true }})
}

// sandboxTournament is the tournament as the sandbox world answers it
// upstream, asked directly (not through the API or its cache).
func sandboxTournament(t *testing.T, h *harness, tag string) official.Tournament {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/v1/tournaments/%23"+tag, nil)
	req.Header.Set("Authorization", "Bearer test")
	h.world.Handler().ServeHTTP(rec, req)
	var out official.Tournament
	if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &out) != nil {
		t.Fatalf("sandbox tournament %s: status %d", tag, rec.Code)
	}
	return out
}

// sandboxTournamentsByStatus is the first sandbox tournament of each status.
func sandboxTournamentsByStatus(t *testing.T, h *harness) map[string]string {
	t.Helper()
	byStatus := map[string]string{}
	for _, tag := range h.world.TournamentTags() {
		status := sandboxTournament(t, h, tag).Status
		if _, ok := byStatus[status]; !ok {
			byStatus[status] = tag
		}
		if len(byStatus) == 3 {
			return byStatus
		}
	}
	t.Fatalf("the sandbox has tournaments of only these statuses: %v", byStatus)
	return nil
}

// keysOf is the sorted key set of a decoded JSON object.
func keysOf(object map[string]any) []string {
	keys := make([]string, 0, len(object))
	for k := range object {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sortedCopy is a sorted copy of names.
func sortedCopy(names []string) []string {
	return slices.Sorted(slices.Values(names))
}

// unixOf is a wire timestamp in Unix seconds, as a decoded JSON number;
// nil for none.
func unixOf(t *testing.T, stamp string) any {
	t.Helper()
	if stamp == "" {
		return nil
	}
	at, ok := official.ParseTime(stamp)
	if !ok {
		t.Fatalf("bad sandbox timestamp %q", stamp)
	}
	return float64(at.Unix())
}

func TestTournamentOfEachStatusInTheLegacyShape(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("60")
	for status, tag := range sandboxTournamentsByStatus(t, h) {
		t.Run(status, func(t *testing.T) {
			want := sandboxTournament(t, h, tag)
			var got map[string]any
			decodeJSON(t, h.get("/tournament/%23"+strings.ToLower(tag), "auth", key), &got)
			if keys := keysOf(got); !slices.Equal(keys, sortedCopy(tournamentKeys)) {
				t.Fatalf("keys %v, want %v", keys, tournamentKeys)
			}
			var endedTime any
			if want.EndedTime != "" {
				endedTime = want.EndedTime
			}
			created := unixOf(t, want.CreatedTime)
			for field, value := range map[string]any{
				"tag": tag, "open": want.Type == "open", "status": status, "name": want.Name,
				"description": want.Description, "maxPlayers": float64(want.MaxCapacity),
				"prepTime": float64(want.PreparationDuration), "duration": float64(want.Duration),
				"endedTime": endedTime, "startTime": unixOf(t, want.StartedTime), "createTime": created,
				"type": want.Type, "capacity": float64(want.Capacity), "maxCapacity": float64(want.MaxCapacity),
				"preparationDuration": float64(want.PreparationDuration),
			} {
				if got[field] != value {
					t.Errorf("%s = %#v, want %#v", field, got[field], value)
				}
			}
			members := got["members"].([]any)
			if len(members) != len(want.MembersList) || len(members) == 0 {
				t.Fatalf("%d members, want %d (and some)", len(members), len(want.MembersList))
			}
			var creator map[string]any
			for i, m := range members {
				member := m.(map[string]any)
				upstreamMember := want.MembersList[i]
				if keys := keysOf(member); !slices.Equal(keys, []string{"name", "score", "tag"}) {
					t.Fatalf("member keys %v", keys)
				}
				if member["tag"] != strings.TrimPrefix(upstreamMember.Tag, "#") || member["name"] != upstreamMember.Name || member["score"] != float64(upstreamMember.Score) {
					t.Fatalf("member %d = %v, upstream %+v", i, member, upstreamMember)
				}
				if upstreamMember.Tag == want.CreatorTag {
					creator = member
				}
			}
			if creator == nil || !maps.Equal(got["creator"].(map[string]any), creator) {
				t.Fatalf("creator %v, want the member %v", got["creator"], creator)
			}
		})
	}
}

func TestTournamentLookupIsCachedAndStored(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("61")
	tag := h.world.TournamentTags()[0]
	first := h.get("/tournament/"+tag, "auth", key)
	firstBody := readBody(t, first)
	if first.StatusCode != http.StatusOK || first.Header.Get("ETag") == "" || first.Header.Get("x-cached") != "" {
		t.Fatalf("first: status %d, ETag %q, x-cached %q", first.StatusCode, first.Header.Get("ETag"), first.Header.Get("x-cached"))
	}
	second := h.get("/tournament/"+tag, "auth", key)
	expectHeader(t, second, "x-cached", "true")
	if body := readBody(t, second); string(body) != string(firstBody) {
		t.Fatal("the cached answer differs")
	}
	if n := h.upstream.count("/v1/tournaments/%23" + tag); n != 1 {
		t.Fatalf("upstream asked %d times for two lookups within the TTL", n)
	}
	var known []map[string]any
	decodeJSON(t, h.get("/tournaments/known", "auth", key), &known)
	if len(known) != 1 || known[0]["tag"] != tag {
		t.Fatalf("known after one lookup: %v", known)
	}
	records, err := h.tournaments.ListTournaments(t.Context(), nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 1 || !records[0].UpdatedAt.Equal(h.clock.Now().Truncate(time.Second)) {
		t.Fatalf("stored %+v, want it updated at %s", records, h.clock.Now())
	}
}

func TestSeveralTournaments(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("62")
	tags := h.world.TournamentTags()
	if len(tags) < 11 {
		t.Fatalf("the sandbox has %d tournaments, want at least 11", len(tags))
	}
	a, b, c := tags[0], tags[1], tags[2]
	for _, tt := range []struct {
		name string
		path string
		want []string
	}{
		{"order of the request", c + "," + a + "," + b, []string{c, a, b}},
		{"ten tags", strings.Join(tags[:10], ","), tags[:10]},
		{"unknown ones are left out", unknownTournamentA + "," + b + "," + unknownTournamentB + "," + a, []string{b, a}},
		{"a duplicate is answered once, at its first place", b + ",%23" + a + "," + strings.ToLower(b), []string{b, a}},
		{"a duplicate of one tag is still a list", a + "," + a, []string{a}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []legacy.Tournament
			decodeJSON(t, h.get("/tournament/"+tt.path, "auth", key), &got)
			gotTags := make([]string, len(got))
			for i, tournament := range got {
				gotTags[i] = tournament.Tag
			}
			if !slices.Equal(gotTags, tt.want) {
				t.Fatalf("tags %v, want %v", gotTags, tt.want)
			}
		})
	}
	if n := h.upstream.count("/v1/tournaments/%23" + b); n != 1 {
		t.Errorf("upstream asked %d times for %s across the lists, want once (cache)", n, b)
	}
	for _, tt := range []struct {
		name, path string
		status     int
		text       string
	}{
		{"eleven tags", strings.Join(tags[:11], ","), http.StatusBadRequest, "invalid value for 'tags': at most 10 tags"},
		{"an illegal tag is named", a + ",2cc-p", http.StatusBadRequest, "illegal characters in tag '2CC-P' (allowed: 0289CGJLPQRUVY)"},
		{"a short tag is named", a + ",%2322", http.StatusBadRequest, "tag too short: '#22'"},
		{"a tag is read percent-decoded", a + ",%41BC", http.StatusBadRequest, "illegal characters in tag 'ABC' (allowed: 0289CGJLPQRUVY)"},
		{"a tag is decoded once", a + ",%2523PYL", http.StatusBadRequest, "illegal characters in tag '%23PYL' (allowed: 0289CGJLPQRUVY)"},
		{"an escaped space is no part of a tag", "%20" + a, http.StatusBadRequest, "illegal characters in tag ' " + a + "' (allowed: 0289CGJLPQRUVY)"},
		{"a long tag is named", "222222222222222," + a, http.StatusBadRequest, "tag too long: '222222222222222'"},
		{"an empty tag is named", a + ",", http.StatusBadRequest, "tag too short: ''"},
		{"none found", unknownTournamentA + "," + unknownTournamentB, http.StatusNotFound, "Not found"},
		{"one unknown tag", unknownTournamentA, http.StatusNotFound, "Not found"},
		{"one invalid tag", "ABC", http.StatusBadRequest, "illegal characters in tag 'ABC' (allowed: 0289CGJLPQRUVY)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			expectError(t, h.get("/tournament/"+tt.path, "auth", key), tt.status, tt.text)
		})
	}
}

func TestTournamentLookupNeedsAKeyWhenOn(t *testing.T) {
	h := newTournamentHarness(t)
	expectError(t, h.get("/tournament/"+h.world.TournamentTags()[0]), http.StatusUnauthorized, "Unauthorized; missing authentication key")
	expectError(t, h.get("/tournaments/known"), http.StatusUnauthorized, "Unauthorized; missing authentication key")
}

func TestTournamentsOnNeedTheirDependencies(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, drop := range []func(*api.Dependencies){
		func(d *api.Dependencies) { d.TournamentSource = nil },
		func(d *api.Dependencies) { d.TournamentStore = nil },
	} {
		deps := h.deps
		drop(&deps)
		if _, err := api.New(api.Config{RateLimitPerSecond: 1, RateLimitBurst: 1}, deps); err != nil {
			t.Fatalf("tournaments off: %v", err)
		}
		_, err := api.New(api.Config{RateLimitPerSecond: 1, RateLimitBurst: 1, Tournaments: true}, deps)
		if err == nil || !strings.Contains(err.Error(), "TournamentSource and TournamentStore") {
			t.Fatalf("tournaments on without a tournament source or store: error %v", err)
		}
	}
}

// GET /tournaments/:tags is GET /tournament/:tags under the name legacy
// clients call: the same answers, errors included.
func TestTournamentsTagIsTheSameLookup(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("63")
	tags := h.world.TournamentTags()
	for _, tail := range []string{
		tags[0], "%23" + strings.ToLower(tags[1]), tags[2] + "," + tags[0], unknownTournamentA + "," + tags[3],
		unknownTournamentA, "ABC", tags[0] + ",22", strings.Join(tags[:11], ","),
	} {
		t.Run(tail, func(t *testing.T) {
			want := h.get("/tournament/"+tail, "auth", key)
			wantBody := readBody(t, want)
			got := h.get("/tournaments/"+tail, "auth", key)
			if body := readBody(t, got); got.StatusCode != want.StatusCode || string(body) != string(wantBody) {
				t.Fatalf("/tournaments/: %d %s\n/tournament/:  %d %s", got.StatusCode, body, want.StatusCode, wantBody)
			}
		})
	}
	// And it is a lookup: the tournament becomes known.
	var known []legacy.KnownTournament
	decodeJSON(t, h.get("/tournaments/known", "auth", key), &known)
	if len(known) != 4 {
		t.Fatalf("known after looking up four tournaments: %+v", known)
	}
}
