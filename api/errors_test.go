package api_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
)

func TestUnknownPathsAndMethods(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("1")
	for _, path := range []string{"/", "/nope", "/clan", "/clan/2CCCP", "/clan/2CCCP/history/monthly", "/tournaments/2CCCP/members", "/players/2CCCP/battles"} {
		t.Run("GET "+path, func(t *testing.T) {
			expectError(t, h.get(path), http.StatusNotFound, "Path not found")
			expectError(t, h.get(path, "auth", key), http.StatusNotFound, "Path not found")
		})
	}
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
		for _, path := range []string{"/clan/search", "/nope", "/healthz"} {
			t.Run(method+" "+path, func(t *testing.T) {
				resp := h.do(method, path, "auth", key)
				expectError(t, resp, http.StatusMethodNotAllowed, "Method not allowed")
				if allow := resp.Header.Get("Allow"); allow != "GET, HEAD" {
					t.Fatalf("Allow = %q", allow)
				}
			})
		}
	}
}

func TestTagValidation(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("2")
	for _, route := range []string{"/player/%s/battles", "/clan/%s/history", "/clan/%s/history/weekly"} {
		for _, tt := range []struct{ tag, text string }{
			{"ABC", "illegal characters in tag 'ABC' (allowed: 0289CGJLPQRUVY)"},
			{"2cc-p", "illegal characters in tag '2CC-P' (allowed: 0289CGJLPQRUVY)"},
			{"22", "tag too short"},
			{"%2322", "tag too short"},
			{"%41BC", "illegal characters in tag 'ABC' (allowed: 0289CGJLPQRUVY)"},
			{"%2523PYL", "illegal characters in tag '%23PYL' (allowed: 0289CGJLPQRUVY)"},
			{"%0A22Q", "illegal characters in tag '\n22Q' (allowed: 0289CGJLPQRUVY)"},
			{"%202CCCP", "illegal characters in tag ' 2CCCP' (allowed: 0289CGJLPQRUVY)"},
			{"222222222222222", "tag too long"},
			{"%C3%89%C3%89%C3%89%C3%89%C3%89%C3%89%C3%89%C3%89", "illegal characters in tag 'ÉÉÉÉÉÉÉÉ' (allowed: 0289CGJLPQRUVY)"},
			{"%E2%9C%93%E2%9C%93%E2%9C%93%E2%9C%93%E2%9C%93", "illegal characters in tag '✓✓✓✓✓' (allowed: 0289CGJLPQRUVY)"},
		} {
			path := strings.Replace(route, "%s", tt.tag, 1)
			t.Run(path, func(t *testing.T) {
				expectError(t, h.get(path, "auth", key), http.StatusBadRequest, tt.text)
			})
		}
	}
}

func TestQueryValidation(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("3")
	for _, tt := range []struct{ path, text string }{
		{"/clan/2CCCP/history?days=abc", "invalid value for 'days': not a whole number"},
		{"/clan/2CCCP/history?days=-1", "invalid value for 'days': must be between 0 and 365"},
		{"/clan/2CCCP/history/weekly?days=366", "invalid value for 'days': must be between 0 and 365"},
		{"/clan/2CCCP/history?days=1.5", "invalid value for 'days': not a whole number"},
		{"/clan/2CCCP/history?days=99999999999999999999", "invalid value for 'days': must be between 0 and 365"},
		{"/clan/search?score=-99999999999999999999", "invalid value for 'score': must be between 0 and 100000000"},
		{"/clan/search", "at least one filter is required: name, score, minMembers or locationId"},
		{"/clan/search?maxMembers=20", "at least one filter is required: name, score, minMembers or locationId"},
		{"/clan/search?limit=10", "at least one filter is required: name, score, minMembers or locationId"},
		{"/clan/search?name=ab", "invalid value for 'name': must be at least 3 characters"},
		{"/clan/search?name=%20%20ab%20", "invalid value for 'name': must be at least 3 characters"},
		{"/clan/search?name=" + strings.Repeat("x", 51), "invalid value for 'name': must be at most 50 characters"},
		{"/clan/search?score=-1", "invalid value for 'score': must be between 0 and 100000000"},
		{"/clan/search?score=lots", "invalid value for 'score': not a whole number"},
		{"/clan/search?minMembers=1", "invalid value for 'minMembers': must be between 2 and 50"},
		{"/clan/search?minMembers=10&maxMembers=51", "invalid value for 'maxMembers': must be between 2 and 50"},
		{"/clan/search?minMembers=30&maxMembers=20", "invalid value for 'maxMembers': must not be less than minMembers"},
		{"/clan/search?locationId=europe", "invalid value for 'locationId': not a whole number"},
		{"/clan/search?name=royal&limit=0", "invalid value for 'limit': must be between 1 and 100"},
		{"/clan/search?name=royal&limit=101", "invalid value for 'limit': must be between 1 and 100"},
		{"/clan/search?name=royal&after=a&before=b", "invalid value for 'before': cannot be combined with 'after'"},
		{"/clan/search?name=royal&after=", "invalid value for 'after': not a cursor from a previous page"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			expectError(t, h.get(tt.path, "auth", key), http.StatusBadRequest, tt.text)
		})
	}
	if got := h.upstream.total.Load(); got != 0 {
		t.Fatalf("invalid requests reached the upstream %d times", got)
	}
}

func TestHistoryOfUntrackedClan(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("4")
	expectError(t, h.get("/clan/2CCCP/history", "auth", key), http.StatusExpectationFailed, "clan not tracked")
	expectError(t, h.get("/clan/%232CCCP/history/weekly?days=0", "auth", key), http.StatusExpectationFailed, "clan not tracked")
}

func TestTournamentRoutesAnswer501WhenOff(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("5")
	paths := []string{"/tournament/2CCCP", "/tournament/2CCCP,2PP", "/tournament/not-a-tag",
		"/tournaments/2CCCP", "/tournaments/2CCCP,2PP", "/tournaments/not-a-tag",
		"/tournaments/known", "/tournaments/1k", "/tournaments/full", "/tournaments/open", "/tournaments/inprep", "/tournaments/joinable?open=7"}
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			expectError(t, h.get(path), http.StatusNotImplemented, "Not Implemented")
			expectError(t, h.get(path, "auth", key), http.StatusNotImplemented, "Not Implemented")
		})
	}
}

func TestHealth(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	for _, path := range []string{"/healthz", "/readyz"} {
		var body map[string]string
		decodeJSON(t, h.get(path), &body)
		if body["status"] == "" {
			t.Fatalf("%s: body %v", path, body)
		}
	}
}

func TestUnexpectedErrorsAre500WithEventID(t *testing.T) {
	h := newHarness(t, harnessOptions{game: failingGame{err: errors.New("secret internal detail: pq: relation missing")}})
	key := h.issue("6")
	body := expectError(t, h.get("/player/2CCCP/battles", "auth", key), http.StatusInternalServerError, "Internal server error")
	if len(body.EventID) < 8 {
		t.Fatalf("eventId = %q", body.EventID)
	}
	if !h.logs.contains(body.EventID) || !h.logs.contains("secret internal detail") {
		t.Fatal("the 500's event id and cause are not in the log")
	}
}

func TestNoCORSHeaders(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("7")
	resp := h.get("/clan/search?name=royal", "auth", key, "Origin", "https://example.org")
	for name := range resp.Header {
		if strings.HasPrefix(strings.ToLower(name), "access-control-") {
			t.Fatalf("CORS header %s present", name)
		}
	}
}

// failingGame is a game source that fails with err, to reach the error
// path no real part produces on demand.
type failingGame struct{ err error }

func (g failingGame) SearchClans(context.Context, legacy.ClanSearchQuery) (legacy.ClanSearchPage, error) {
	return legacy.ClanSearchPage{}, g.err
}

func (g failingGame) PlayerBattles(context.Context, string) ([]legacy.Battle, error) {
	return nil, g.err
}

var _ api.GameData = failingGame{}

// TestAKeyInAPathIsNeverLogged: a client that puts its key in the path by
// mistake (an unknown path, or a refused method) gets its answer, and
// the log line of the request names the path without the key, in the
// logger's access lines and in those written directly.
func TestAKeyInAPathIsNeverLogged(t *testing.T) {
	for _, direct := range []bool{false, true} {
		h := newHarness(t, harnessOptions{directAccessLog: direct})
		key := h.issue("1")
		expectError(t, h.get("/"+key, "auth", key), http.StatusNotFound, "Path not found")
		expectError(t, h.get("/clan/search/"+key+"/x"), http.StatusNotFound, "Path not found")
		expectError(t, h.do(http.MethodPost, "/keys/"+key, "auth", key), http.StatusMethodNotAllowed, "Method not allowed")
		if h.logs.contains(key[len("crw_"):]) || h.logs.contains(key[len("crw_"):30]) {
			t.Errorf("direct access log %v: a key appeared in the logs:\n%s", direct, h.logs.String())
		}
		if !h.logs.contains("crw_[redacted]") {
			t.Errorf("direct access log %v: the logs do not name the redacted path:\n%s", direct, h.logs.String())
		}
	}
}

// TestAPanicOfAHandlerIsA500AndTheServerGoesOn: a panic of the work
// behind an answer (here the game data a search asks for, produced in a
// goroutine of the response cache's own, and a history read in it too;
// a clan's tracking status, read in the request's) answers 500 with an event id, the log line of that event
// holds the panic and its stack, and the next request is served: the
// process, the bot and the scheduler in it, lives on.
func TestAPanicOfAHandlerIsA500AndTheServerGoesOn(t *testing.T) {
	h := newHarness(t, harnessOptions{
		game:    panickingGame{},
		history: func(real api.ClanHistoryReader) api.ClanHistoryReader { return panickingHistory{real} },
	})
	key := h.issue("6")
	for _, path := range []string{"/clan/search?name=royal", "/player/2CCCP/battles", "/clan/2CCCP/history", "/clan/2CCCP/tracking"} {
		body := expectError(t, h.get(path, "auth", key), http.StatusInternalServerError, "Internal server error")
		if len(body.EventID) < 8 || !h.logs.contains(body.EventID) {
			t.Fatalf("%s: event id %q, not in the log", path, body.EventID)
		}
	}
	if !h.logs.contains("panic: the game data broke") || !h.logs.contains("panic: the history broke") || !h.logs.contains("panics.go") {
		t.Fatalf("the panics and their stacks are not in the log:\n%s", h.logs)
	}
	expectStatus(t, h.get("/healthz"), http.StatusOK)
}

// panickingGame is a game source that panics.
type panickingGame struct{}

func (panickingGame) SearchClans(context.Context, legacy.ClanSearchQuery) (legacy.ClanSearchPage, error) {
	panic("the game data broke")
}

func (panickingGame) PlayerBattles(context.Context, string) ([]legacy.Battle, error) {
	panic("the game data broke")
}

// panickingHistory is a clan history reader whose reads panic.
type panickingHistory struct{ api.ClanHistoryReader }

func (panickingHistory) FingerprintedClanHistory(context.Context, string, models.SnapshotKind, time.Time, time.Time) ([]models.HistorySnapshot, models.HistoryFingerprint, error) {
	panic("the history broke")
}

func (panickingHistory) TrackingStatus(context.Context, string) (models.ClanTracking, error) {
	panic("the history broke")
}

// TestAPercentEncodedKeyInAPathIsNeverLogged: a key whose characters a
// client's URL encoder escaped ("crw%5F…", "%63rw_…") is the key all the
// same once the path is decoded, as the router decodes it: the log line
// names the path without it.
func TestAPercentEncodedKeyInAPathIsNeverLogged(t *testing.T) {
	for _, direct := range []bool{false, true} {
		h := newHarness(t, harnessOptions{directAccessLog: direct})
		key := h.issue("1")
		random := key[len("crw_"):]
		for _, path := range []string{"/crw%5F" + random, "/crw%5f" + random + "/x", "/%63rw_" + random, "/docs/%63%72%77%5F" + random} {
			expectError(t, h.get(path, "auth", key), http.StatusNotFound, "Path not found")
		}
		if h.logs.contains(random) || h.logs.contains(random[:26]) {
			t.Errorf("direct access log %v: a key appeared in the logs:\n%s", direct, h.logs.String())
		}
		if !h.logs.contains("crw_[redacted]") {
			t.Errorf("direct access log %v: the logs do not name the redacted path:\n%s", direct, h.logs.String())
		}
	}
}
