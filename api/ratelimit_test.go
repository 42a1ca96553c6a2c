package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
)

func TestRateLimitPerKey(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) {
		c.RateLimitPerSecond = 2
		c.RateLimitBurst = 3
	}})
	key := h.issue("10")
	other := h.issue("11")
	const path = "/clan/2CCCP/history" // answers 417 without the upstream: cheap

	// A token comes back every 500 ms: the bucket is full again 500 ms
	// per token spent later, in whole seconds rounded up.
	for i, want := range []struct{ remaining, rateLimit string }{
		{"2", `"default";r=2;t=1`},
		{"1", `"default";r=1;t=1`},
		{"0", `"default";r=0;t=2`},
	} {
		resp := h.get(path, "auth", key)
		if resp.StatusCode != http.StatusExpectationFailed {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
		expectHeader(t, resp, "x-ratelimit-limit", "2")
		expectHeader(t, resp, "x-ratelimit-remaining", want.remaining)
		expectHeader(t, resp, "RateLimit-Policy", `"default";q=2;w=1`)
		expectHeader(t, resp, "RateLimit", want.rateLimit)
	}
	limited := h.get(path, "auth", key)
	expectHeader(t, limited, "x-ratelimit-remaining", "0")
	expectHeader(t, limited, "x-ratelimit-retry-after", "500")
	expectHeader(t, limited, "Retry-After", "1")
	expectHeader(t, limited, "RateLimit", `"default";r=0;t=2`)
	expectError(t, limited, http.StatusTooManyRequests, "Rate limit exceeded")

	// Another key has its own bucket.
	if resp := h.get(path, "auth", other); resp.StatusCode != http.StatusExpectationFailed {
		t.Fatalf("other key: status %d", resp.StatusCode)
	}

	// Half a second later one token is back, and only one.
	h.clock.Advance(500 * time.Millisecond)
	if resp := h.get(path, "auth", key); resp.StatusCode != http.StatusExpectationFailed {
		t.Fatalf("after refill: status %d", resp.StatusCode)
	}
	expectError(t, h.get(path, "auth", key), http.StatusTooManyRequests, "Rate limit exceeded")

	// A long pause refills to the burst, not beyond.
	h.clock.Advance(time.Hour)
	resp := h.get(path, "auth", key)
	expectHeader(t, resp, "x-ratelimit-remaining", "2")
}

func TestRateLimitHeadersOnEveryAuthenticatedAnswer(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("12")
	for _, path := range []string{"/clan/search?name=royal", "/clan/search", "/player/ABC/battles", "/clan/2CCCP/history"} {
		resp := h.get(path, "auth", key)
		for _, name := range []string{"x-ratelimit-limit", "x-ratelimit-remaining", "RateLimit-Policy", "RateLimit"} {
			if resp.Header.Get(name) == "" {
				t.Errorf("%s: status %d without %s", path, resp.StatusCode, name)
			}
		}
	}
	if resp := h.get("/clan/search?name=royal"); resp.Header.Get("x-ratelimit-limit") != "" {
		t.Error("an unauthenticated answer carries rate-limit headers")
	}
}

func TestRetryAfterRoundsUp(t *testing.T) {
	tests := []struct {
		name         string
		rate         float64
		advance      time.Duration
		milliseconds string
		seconds      string
	}{
		{"whole milliseconds, half a second", 0.25, 1500 * time.Millisecond, "2500", "3"},
		{"under half a second", 0.25, 1600 * time.Millisecond, "2400", "3"},
		{"a fraction of a millisecond", 3, 0, "334", "1"}, // a token every 333.333333 ms
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{config: func(c *api.Config) {
				c.RateLimitPerSecond = tt.rate
				c.RateLimitBurst = 1
			}})
			key := h.issue("13")
			h.get("/clan/2CCCP/history", "auth", key)
			h.clock.Advance(tt.advance)
			limited := h.get("/clan/2CCCP/history", "auth", key)
			expectHeader(t, limited, "x-ratelimit-retry-after", tt.milliseconds)
			expectHeader(t, limited, "Retry-After", tt.seconds)
			expectError(t, limited, http.StatusTooManyRequests, "Rate limit exceeded")
		})
	}
}

func expectHeader(t *testing.T, resp *http.Response, name, want string) {
	t.Helper()
	if got := resp.Header.Get(name); got != want {
		t.Fatalf("%s = %q, want %q", name, got, want)
	}
}

func TestNewRefusesABucketThatWouldTakeCenturiesToFill(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	_, err := api.New(api.Config{RateLimitPerSecond: 1e-6, RateLimitBurst: 1_000_000}, h.deps)
	if err == nil || !strings.Contains(err.Error(), "within 100 years") {
		t.Fatalf("a bucket filling in 31,000 years: error %v", err)
	}
	if _, err := api.New(api.Config{RateLimitPerSecond: 0.001, RateLimitBurst: 1_000_000}, h.deps); err != nil {
		t.Fatalf("a bucket filling in 31 years: %v", err)
	}
}

// TestNewRefusesBudgetsThatGiveNoneInACentury: the key-lookup and
// game-call budgets are buckets too, whose interval between tokens must
// fit the limiter: one smaller than a token in 100 years, or negative,
// would let every request through.
func TestNewRefusesBudgetsThatGiveNoneInACentury(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	base := api.Config{RateLimitPerSecond: 10, RateLimitBurst: 20}
	for _, tt := range []struct {
		name string
		set  func(*api.Config, float64)
	}{
		{"KeyLookupsPerAddress", func(c *api.Config, r float64) { c.KeyLookupsPerAddress = r }},
		{"KeyLookupsPerSecond", func(c *api.Config, r float64) { c.KeyLookupsPerSecond = r }},
		{"GameCallsPerKey", func(c *api.Config, r float64) { c.GameCallsPerKey = r }},
	} {
		for _, rate := range []float64{1e-12, -1} {
			cfg := base
			tt.set(&cfg, rate)
			if _, err := api.New(cfg, h.deps); err == nil || !strings.Contains(err.Error(), tt.name) {
				t.Errorf("%s %g: error %v, want one naming %s", tt.name, rate, err, tt.name)
			}
		}
		cfg := base
		tt.set(&cfg, 1e-9) // one in 32 years
		if _, err := api.New(cfg, h.deps); err != nil {
			t.Errorf("%s 1e-9: %v", tt.name, err)
		}
	}
}
