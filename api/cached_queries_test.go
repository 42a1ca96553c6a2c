package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/keys"
)

func TestCachedRequestsCostNoQuery(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) { c.HistoryCacheTTL = time.Minute }})
	key := h.issue("30")
	unknown, err := keys.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	clan := h.world.TrackableClanTags()[0]
	if resp := h.get("/clan/"+clan+"/track", "auth", key); resp.StatusCode != http.StatusOK {
		t.Fatalf("track: %d %s", resp.StatusCode, readBody(t, resp))
	}
	tests := []struct {
		name    string
		path    string
		headers []string
		status  int
	}{
		{"history", "/clan/" + clan + "/history", []string{"auth", key}, http.StatusOK},
		{"history, gzip", "/clan/" + clan + "/history?days=2", []string{"auth", key, "Accept-Encoding", "gzip"}, http.StatusOK},
		{"history of an untracked clan", "/clan/" + h.world.ClanTags()[1] + "/history", []string{"Authorization", "Bearer " + key}, http.StatusExpectationFailed},
		{"battles", "/player/" + h.world.PlayerTags()[0] + "/battles", []string{"auth", key}, http.StatusOK},
		{"clan search", "/clan/search?name=royal&limit=5", []string{"auth", key}, http.StatusOK},
		{"well-formed unknown key", "/clan/" + clan + "/history", []string{"auth", unknown}, http.StatusUnauthorized},
		{"malformed key", "/clan/" + clan + "/history", []string{"auth", "crw_nope"}, http.StatusUnauthorized},
	}
	for _, tt := range tests {
		if resp := h.get(tt.path, tt.headers...); resp.StatusCode != tt.status {
			t.Fatalf("%s: first request %d %s", tt.name, resp.StatusCode, readBody(t, resp))
		}
		before := h.db.QueryCount()
		resp := h.get(tt.path, tt.headers...)
		if resp.StatusCode != tt.status {
			t.Fatalf("%s: %d %s", tt.name, resp.StatusCode, readBody(t, resp))
		}
		if n := h.db.QueryCount() - before; n != 0 {
			t.Errorf("%s: a repeated request cost %d queries, want 0", tt.name, n)
		}
	}
}
