package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/keys"
)

// stats asks GET /auth/stats with key and decodes the answer.
func (h *harness) stats(key string) (api.KeyStats, *http.Response) {
	h.t.Helper()
	resp := h.get("/auth/stats", "auth", key)
	body := readBody(h.t, resp)
	if resp.StatusCode != http.StatusOK {
		h.t.Fatalf("/auth/stats: status %d: %s", resp.StatusCode, body)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		h.t.Fatal(err)
	}
	var names []string
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	want := []string{"createdAt", "id", "lastRequest", "rateLimited", "requestCount", "routes"}
	if !reflect.DeepEqual(names, want) {
		h.t.Fatalf("/auth/stats fields %v, want %v", names, want)
	}
	var stats api.KeyStats
	if err := json.Unmarshal(body, &stats); err != nil {
		h.t.Fatal(err)
	}
	return stats, resp
}

func (h *harness) flush() {
	h.t.Helper()
	if err := h.keys.Flush(context.Background()); err != nil {
		h.t.Fatal(err)
	}
}

func TestAuthStatsCountsRequestsRateLimitsAndRoutes(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) {
		c.RateLimitPerSecond = 1
		c.RateLimitBurst = 3
	}})
	key := h.issue("20")
	other := h.issue("21")
	const history = "/clan/2CCCP/history" // 417 without the upstream: cheap
	for range 5 {
		h.get(history, "auth", key) // 3 answered 417, then 2 refused 429
	}
	h.get("/clan/ABC/tracking", "auth", other) // another key's 400
	h.clock.Advance(24 * time.Hour)            // the next UTC day
	h.get("/clan/ABC/tracking", "auth", key)   // 400
	h.flush()

	stats, resp := h.stats(key)
	if got := resp.Header.Get("x-ratelimit-remaining"); got != "2" {
		t.Errorf("x-ratelimit-remaining = %q, want 2 (a day refilled the bucket, the day's request spent one)", got)
	}
	day1, day2 := "2026-11-02", "2026-11-03"
	if want := map[string]int64{day1: 5, day2: 1}; !reflect.DeepEqual(stats.RequestCount, want) {
		t.Errorf("requestCount = %v, want %v", stats.RequestCount, want)
	}
	if want := map[string]int64{day1: 2, day2: 0}; !reflect.DeepEqual(stats.RateLimited, want) {
		t.Errorf("rateLimited = %v, want %v", stats.RateLimited, want)
	}
	if want := map[string]int64{"/clan/:tag/history": 5, "/clan/:tag/tracking": 1}; !reflect.DeepEqual(stats.Routes, want) {
		t.Errorf("routes = %v, want %v", stats.Routes, want)
	}
	if stats.ID <= 0 || stats.CreatedAt != time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC).Unix() {
		t.Errorf("id %d createdAt %d", stats.ID, stats.CreatedAt)
	}
	if stats.LastRequest == nil || *stats.LastRequest != h.clock.Now().Unix() {
		t.Errorf("lastRequest = %v, want %d", stats.LastRequest, h.clock.Now().Unix())
	}

	// The stats request itself is counted at the next flush, and shown
	// once the answer's few seconds are over; the other key's usage is
	// its own.
	h.flush()
	if stats, resp := h.stats(key); stats.Routes["/auth/stats"] != 0 || resp.Header.Get("x-cached") != "true" {
		t.Errorf("within its few seconds: routes = %v, x-cached %q; want the answer of before", stats.Routes, resp.Header.Get("x-cached"))
	}
	h.clock.Advance(5 * time.Second)
	if stats, _ := h.stats(key); stats.Routes["/auth/stats"] != 1 {
		t.Errorf("routes = %v, want the one /auth/stats flushed", stats.Routes)
	}
	if stats, _ := h.stats(other); !reflect.DeepEqual(stats.RequestCount, map[string]int64{day1: 1}) {
		t.Errorf("other key's requestCount = %v", stats.RequestCount)
	}
}

func TestAuthStatsAfterMidnightShowsTheNewDay(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("24")
	h.clock.Advance(13*time.Hour + 29*time.Minute + 58*time.Second) // 2026-11-02 23:59:58
	h.get("/clan/2CCCP/history", "auth", key)
	h.flush()
	if stats, _ := h.stats(key); !reflect.DeepEqual(stats.RequestCount, map[string]int64{"2026-11-02": 1}) {
		t.Fatalf("before midnight: requestCount = %v", stats.RequestCount)
	}
	h.clock.Advance(3 * time.Second) // within the answer's few seconds, but the next UTC day
	h.get("/clan/2CCCP/history", "auth", key)
	h.flush()
	stats, resp := h.stats(key)
	// The day before holds its history request and the stats request.
	if want := map[string]int64{"2026-11-02": 2, "2026-11-03": 1}; !reflect.DeepEqual(stats.RequestCount, want) {
		t.Errorf("after midnight: requestCount = %v (x-cached %q), want %v", stats.RequestCount, resp.Header.Get("x-cached"), want)
	}
}

func TestAuthStatsIsFreeAndAnswersARateLimitedKey(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) {
		c.RateLimitPerSecond = 1
		c.RateLimitBurst = 2
	}})
	key := h.issue("22")
	h.get("/clan/2CCCP/history", "auth", key)
	for range 5 {
		if _, resp := h.stats(key); resp.Header.Get("x-ratelimit-remaining") != "1" {
			t.Fatalf("x-ratelimit-remaining = %q after stats, want 1", resp.Header.Get("x-ratelimit-remaining"))
		}
	}
	h.get("/clan/2CCCP/history", "auth", key)
	if resp := h.get("/clan/2CCCP/history", "auth", key); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the key is not rate-limited: %d", resp.StatusCode)
	}
	_, resp := h.stats(key)
	if resp.Header.Get("x-ratelimit-remaining") != "0" {
		t.Errorf("rate-limited key's stats: x-ratelimit-remaining = %q, want 0", resp.Header.Get("x-ratelimit-remaining"))
	}
	// Two tokens spent at one moment: the bucket is full in 2 s.
	if got, want := resp.Header.Get("RateLimit"), `"default";r=0;t=2`; got != want {
		t.Errorf("rate-limited key's stats: RateLimit = %q, want %q", got, want)
	}
}

func TestAuthStatsOfARegeneratedKeyStartsEmpty(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("23")
	h.get("/clan/2CCCP/history", "auth", key)
	h.flush()
	fresh := h.regenerate("23")
	stats, _ := h.stats(fresh)
	if len(stats.RequestCount) != 0 || len(stats.Routes) != 0 || stats.LastRequest != nil {
		t.Errorf("a regenerated key has usage: %+v", stats)
	}
}

// regenerate replaces a developer's key and returns the new one.
func (h *harness) regenerate(discordUserID string) string {
	h.t.Helper()
	issued, err := h.keys.Regenerate(context.Background(), keys.Developer{DiscordUserID: discordUserID, DisplayName: "dev " + discordUserID}, "test")
	if err != nil {
		h.t.Fatal(err)
	}
	return issued.Key
}

// TestAuthStatsCoversTheLast30UTCDays: the stats of a key are those of
// the 30 UTC days ending today, today included.
func TestAuthStatsCoversTheLast30UTCDays(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	issued, err := h.keys.IssueOrRemind(t.Context(), keys.Developer{DiscordUserID: "24", DisplayName: "dev 24"}, "test")
	if err != nil {
		t.Fatal(err)
	}
	now := h.clock.Now() // 2026-11-02 10:30 UTC
	today := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{
		today.AddDate(0, 0, -29),                   // the first day of the 30
		today.AddDate(0, 0, -29).Add(-time.Second), // the day before it
		now,
	} {
		h.keys.Count(issued.KeyID, "/clan/:tag/history", http.StatusOK, at)
	}
	h.flush()
	stats, _ := h.stats(issued.Key)
	if want := map[string]int64{"2026-10-04": 1, "2026-11-02": 1}; !reflect.DeepEqual(stats.RequestCount, want) {
		t.Errorf("requestCount = %v, want %v", stats.RequestCount, want)
	}
	if want := map[string]int64{"/clan/:tag/history": 2}; !reflect.DeepEqual(stats.Routes, want) {
		t.Errorf("routes = %v, want %v", stats.Routes, want)
	}
}
