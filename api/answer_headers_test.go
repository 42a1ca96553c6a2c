package api_test

import (
	"net/http"
	"testing"

	"github.com/crownsdev/crowns/api"
)

// TestEveryAnswerCarriesItsCachingHeaders: every answer of a keyed route —
// fresh, cached, 304, refused for its key, its rate or its input — says
// Cache-Control: private, no-store and Vary: auth, Authorization,
// Accept-Encoding; every answer, keyed or not, says
// X-Content-Type-Options: nosniff.
func TestEveryAnswerCarriesItsCachingHeaders(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(cfg *api.Config) { cfg.RateLimitPerSecond, cfg.RateLimitBurst = 0.001, 8 }})
	key := h.issue("1")
	limited := h.issue("2")
	first := h.get("/clan/search?name=royal", "auth", key)
	etag := first.Header.Get("ETag")
	_ = readBody(t, first)

	tests := []struct {
		name    string
		path    string
		headers []string
		status  int
		keyed   bool
	}{
		{"cached 200", "/clan/search?name=royal", []string{"auth", key}, 200, true},
		{"304", "/clan/search?name=royal", []string{"Authorization", "Bearer " + key, "If-None-Match", etag}, 304, true},
		{"tracking 200", "/clan/2CCCP/tracking", []string{"auth", key}, 200, true},
		{"missing key", "/clan/search?name=royal", nil, 401, true},
		{"unknown key", "/player/2CCCP/battles", []string{"auth", "crw_nope"}, 401, true},
		{"bad tag", "/clan/XYZ!/history", []string{"auth", key}, 400, true},
		{"history refusal", "/clan/2CCCP/history", []string{"auth", key}, 417, true},
		{"health", "/healthz", nil, 200, false},
		{"readiness", "/readyz", nil, 200, false},
		{"unknown path", "/no/such/path", []string{"auth", key}, 404, false},
		{"tournaments off", "/tournaments/known", []string{"auth", key}, 501, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.get(tt.path, tt.headers...)
			_ = readBody(t, resp)
			expectAnswerHeaders(t, resp, tt.status, tt.keyed)
		})
	}
	t.Run("rate limited", func(t *testing.T) {
		var resp *http.Response
		for range 20 {
			if resp = h.get("/clan/2CCCP/tracking", "auth", limited); resp.StatusCode == http.StatusTooManyRequests {
				break
			}
			_ = readBody(t, resp)
		}
		_ = readBody(t, resp)
		expectAnswerHeaders(t, resp, http.StatusTooManyRequests, true)
	})
	t.Run("method not allowed", func(t *testing.T) {
		resp := h.do(http.MethodPost, "/clan/search?name=royal", "auth", key)
		_ = readBody(t, resp)
		expectAnswerHeaders(t, resp, http.StatusMethodNotAllowed, false)
	})
}

// expectAnswerHeaders checks resp's status and the headers its kind
// carries.
func expectAnswerHeaders(t *testing.T, resp *http.Response, status int, keyed bool) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d", resp.StatusCode, status)
	}
	if got := resp.Header.Values("X-Content-Type-Options"); len(got) != 1 || got[0] != "nosniff" {
		t.Errorf("X-Content-Type-Options %q, want nosniff", got)
	}
	cacheControl, vary := resp.Header.Values("Cache-Control"), resp.Header.Values("Vary")
	if keyed {
		if len(cacheControl) != 1 || cacheControl[0] != "private, no-store" {
			t.Errorf("Cache-Control %q, want private, no-store", cacheControl)
		}
		if len(vary) != 1 || vary[0] != "auth, Authorization, Accept-Encoding" {
			t.Errorf("Vary %q, want auth, Authorization, Accept-Encoding", vary)
		}
		return
	}
	if len(cacheControl) != 0 {
		t.Errorf("an answer of no key says Cache-Control %q", cacheControl)
	}
}
