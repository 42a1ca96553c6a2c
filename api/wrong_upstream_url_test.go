package api_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/crownsdev/crowns/api"
)

// wrongHostUpstream answers every request with a web server's own 404 page
// while wrong is set (a base URL without /v1, or another host's), and
// passes requests on to next otherwise.
type wrongHostUpstream struct {
	wrong atomic.Bool
	next  http.Handler
}

func (u *wrongHostUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if u.wrong.Load() {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte("<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>"))
		return
	}
	u.next.ServeHTTP(w, r)
}

// A 404 that is not the game API's not-found body (a wrong
// CROWNS_UPSTREAM_URL) answers the game-backed routes 503 with
// Retry-After, not 404 "Not found"; nothing of it is tracked or cached,
// so the routes answer as ever once the upstream answers again.
func TestA404NotFromTheGameIsUnavailable(t *testing.T) {
	up := &wrongHostUpstream{}
	up.wrong.Store(true)
	h := newHarness(t, harnessOptions{upstream: up, config: func(c *api.Config) { c.Tournaments = true }})
	up.next = h.world.Handler()
	key := h.issue("35")
	clan := h.world.TrackableClanTags()[0]
	paths := []string{
		"/player/" + h.world.PlayerTags()[0] + "/battles",
		"/clan/search?name=royal",
		"/clan/" + clan + "/track",
		"/tournament/" + h.world.TournamentTags()[0],
	}
	for _, path := range paths {
		resp := h.get(path, "auth", key)
		expectError(t, resp, http.StatusServiceUnavailable, "Temporarily unavailable")
		if got := resp.Header.Get("Retry-After"); got != "10" {
			t.Errorf("%s: Retry-After %q, want 10", path, got)
		}
	}
	logs := h.logs.String()
	if n := strings.Count(logs, "CROWNS_UPSTREAM_URL"); n != len(paths) {
		t.Errorf("%d lines name CROWNS_UPSTREAM_URL, want one per request:\n%s", n, logs)
	}
	if strings.Contains(logs, "nginx") {
		t.Errorf("the upstream's page reached the log:\n%s", logs)
	}
	var tracking struct {
		Active bool `json:"active"`
	}
	decodeJSON(t, h.get("/clan/"+clan+"/tracking", "auth", key), &tracking)
	if tracking.Active {
		t.Fatal("the clan is tracked though the game API was never reached")
	}

	up.wrong.Store(false)
	for _, path := range paths {
		resp := h.get(path, "auth", key)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("x-cached") != "" {
			t.Errorf("%s once the upstream answers: status %d, x-cached %q; want a fresh 200", path, resp.StatusCode, resp.Header.Get("x-cached"))
		}
	}
}
