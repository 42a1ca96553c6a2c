package api_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/keys"
)

// madeUpKey is a key of the right form (checksum and all) that was never
// issued.
func madeUpKey(t *testing.T) string {
	t.Helper()
	key, err := keys.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// TestMadeUpKeysCostBoundedLookupsPerClient: fresh well-formed keys from
// one client reach the database only within that client's budget; past
// it they are answered 429, and a key already verified is still served.
func TestMadeUpKeysCostBoundedLookupsPerClient(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) {
		c.KeyLookupsPerAddress = 0.4 // a burst of 4
	}})
	valid := h.issue("300") // its first request takes one of the four lookups
	if resp := h.get("/clan/2CCCP/tracking", "auth", valid); resp.StatusCode != http.StatusOK {
		t.Fatalf("a valid key: %d", resp.StatusCode)
	}
	queries := h.db.QueryCount()
	for i := range 3 {
		expectError(t, h.get("/clan/2CCCP/tracking", "auth", madeUpKey(t)), http.StatusUnauthorized, textUnknownKey)
		if i == 0 && h.db.QueryCount() == queries {
			t.Fatal("a made-up key within the budget was not looked up")
		}
	}
	afterBudget := h.db.QueryCount()
	for range 20 {
		resp := h.get("/clan/2CCCP/tracking", "auth", madeUpKey(t))
		expectError(t, resp, http.StatusTooManyRequests, "Rate limit exceeded")
		if resp.Header.Get("Retry-After") == "" {
			t.Fatal("a 429 of the lookup budget has no Retry-After")
		}
	}
	if n := h.db.QueryCount() - afterBudget; n != 0 {
		t.Fatalf("made-up keys past the budget cost %d statements", n)
	}
	if resp := h.get("/clan/2CCCP/tracking", "auth", valid); resp.StatusCode != http.StatusOK {
		t.Fatalf("a verified key during a flood of made-up keys: %d", resp.StatusCode)
	}
	h.clock.Advance(2500 * time.Millisecond)
	expectError(t, h.get("/clan/2CCCP/tracking", "auth", madeUpKey(t)), http.StatusUnauthorized, textUnknownKey)
	expectError(t, h.get("/clan/2CCCP/tracking", "auth", madeUpKey(t)), http.StatusTooManyRequests, "Rate limit exceeded")
}

// TestMadeUpKeysPastTheOverallBudgetAre503: past the lookups of all
// clients together, an uncached key is answered 503 with Retry-After,
// as a database that cannot keep up.
func TestMadeUpKeysPastTheOverallBudgetAre503(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) {
		c.KeyLookupsPerSecond = 0.4 // a burst of 2
	}})
	for range 2 {
		expectError(t, h.get("/clan/2CCCP/tracking", "auth", madeUpKey(t)), http.StatusUnauthorized, textUnknownKey)
	}
	resp := h.get("/clan/2CCCP/tracking", "auth", madeUpKey(t))
	expectError(t, resp, http.StatusServiceUnavailable, "Temporarily unavailable")
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("a 503 of the lookup budget has no Retry-After")
	}
}

// TestRefusedRequestsAreLoggedBySample: a flood of refused requests
// writes at most the sampler's burst of access lines; once time moves on,
// the next line says how many were left out.
func TestRefusedRequestsAreLoggedBySample(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	const flood = 300
	for range flood {
		expectError(t, h.get("/clan/2CCCP/tracking", "auth", "not-a-key"), http.StatusUnauthorized, textUnknownKey)
	}
	written := strings.Count(h.logs.String(), "status=401")
	if written == 0 || written >= flood || written > 100 {
		t.Fatalf("%d of %d refused requests were logged, want at most the burst of 100", written, flood)
	}
	h.clock.Advance(time.Second)
	expectError(t, h.get("/clan/2CCCP/tracking", "auth", "not-a-key"), http.StatusUnauthorized, textUnknownKey)
	if want := fmt.Sprintf("refusedLinesSkipped=%d", flood-written); !h.logs.contains(want) {
		t.Fatalf("the line after the flood does not say %q:\n%s", want, h.logs.String())
	}
	// Requests without a key to unknown paths are sampled alike.
	h.clock.Advance(time.Minute)
	for range flood {
		expectError(t, h.get("/no/such/path"), http.StatusNotFound, "Path not found")
	}
	if n := strings.Count(h.logs.String(), "status=404"); n == 0 || n > 100 {
		t.Fatalf("%d of %d requests to unknown paths were logged, want at most the burst of 100", n, flood)
	}
	// Answers other than refusals are all logged, a valid key's other
	// 4xx too (the history of an untracked clan).
	h.clock.Advance(time.Minute)
	valid := h.issue("301")
	untracked := h.get("/clan/2CCCP/history", "auth", valid).StatusCode
	if untracked < 400 || untracked >= 500 || untracked == http.StatusTooManyRequests {
		t.Fatalf("the history of an untracked clan answered %d", untracked)
	}
	status := fmt.Sprintf("status=%d", untracked)
	before, beforeUntracked := strings.Count(h.logs.String(), "status=200"), strings.Count(h.logs.String(), status)
	for range 150 {
		h.get("/clan/2CCCP/tracking", "auth", valid)
		h.get("/clan/2CCCP/history", "auth", valid)
	}
	if n := strings.Count(h.logs.String(), "status=200") - before; n != 150 {
		t.Fatalf("%d of 150 answered requests were logged", n)
	}
	if n := strings.Count(h.logs.String(), status) - beforeUntracked; n != 150 {
		t.Fatalf("%d of a valid key's 150 %s answers were logged", n, status)
	}
}

// TestMalformedKeysSpendNoLookups: keys with a wrong checksum are refused
// without a lookup, so any number of them leaves the budget whole.
func TestMalformedKeysSpendNoLookups(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) {
		c.KeyLookupsPerAddress = 0.1 // a burst of 1
	}})
	for range 20 {
		key := madeUpKey(t)
		last := byte('A')
		if key[len(key)-1] == last {
			last = 'B'
		}
		expectError(t, h.get("/clan/2CCCP/tracking", "auth", key[:len(key)-1]+string(last)), http.StatusUnauthorized, textUnknownKey)
	}
	expectError(t, h.get("/clan/2CCCP/tracking", "auth", madeUpKey(t)), http.StatusUnauthorized, textUnknownKey)
}

// TestClientsBehindATrustedProxyHaveTheirOwnLookupBudget: requests that
// come through a trusted proxy spend the lookup budget of the client its
// X-Forwarded-For names (the rightmost address that is not a proxy's,
// whatever the client wrote left of it; an IPv6 client by its /64); from
// any other peer the header is ignored and the peer's budget is spent.
func TestClientsBehindATrustedProxyHaveTheirOwnLookupBudget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		// second is what the first request of a second client gets, after
		// a first client spent its one lookup.
		second int
	}{
		// The harness's requests come from 0.0.0.0.
		{"through a trusted proxy", []netip.Prefix{netip.MustParsePrefix("0.0.0.0/32"), netip.MustParsePrefix("10.0.0.0/8")}, http.StatusUnauthorized},
		{"from a peer that is no proxy", []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}, http.StatusTooManyRequests},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, harnessOptions{config: func(c *api.Config) {
				c.KeyLookupsPerAddress = 0.1 // a burst of 1
				c.TrustedProxies = tc.proxies
			}})
			first := func(forwardedFor string) *http.Response {
				return h.get("/clan/2CCCP/tracking", "auth", madeUpKey(t), "X-Forwarded-For", forwardedFor)
			}
			expectError(t, first("203.0.113.1"), http.StatusUnauthorized, textUnknownKey)
			// The same client, whatever it writes before its address.
			expectError(t, first("198.51.100.9, 203.0.113.1"), http.StatusTooManyRequests, "Rate limit exceeded")
			if got := first("203.0.113.2").StatusCode; got != tc.second {
				t.Fatalf("another client's first made-up key: %d, want %d", got, tc.second)
			}
			if tc.second == http.StatusUnauthorized {
				// Through two proxies, both trusted: the client is left of both.
				expectError(t, first("203.0.113.3, 10.0.0.5"), http.StatusUnauthorized, textUnknownKey)
				expectError(t, first("203.0.113.3"), http.StatusTooManyRequests, "Rate limit exceeded")
				// IPv6 clients are counted by their /64.
				expectError(t, first("2001:db8:1:2::5"), http.StatusUnauthorized, textUnknownKey)
				expectError(t, first("2001:db8:1:2:ffff::6"), http.StatusTooManyRequests, "Rate limit exceeded")
				expectError(t, first("2001:db8:1:3::5"), http.StatusUnauthorized, textUnknownKey)
			}
		})
	}
}
