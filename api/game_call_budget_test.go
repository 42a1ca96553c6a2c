package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
)

// TestEachKeyHasItsBudgetOfGameCalls: a key's requests that the cache
// cannot answer spend its budget of game-API calls; past it they are
// answered 429 without reaching the game API, while cached answers, and
// other keys, are served as before.
func TestEachKeyHasItsBudgetOfGameCalls(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) { c.GameCallsPerKey = 0.05 }}) // a burst of 3
	greedy, other := h.issue("400"), h.issue("401")
	players := h.world.PlayerTags()
	for _, player := range players[:3] {
		if resp := h.get("/player/"+player+"/battles", "auth", greedy); resp.StatusCode != http.StatusOK {
			t.Fatalf("a call within the budget: %d", resp.StatusCode)
		}
	}
	calls := h.upstream.total.Load()
	resp := h.get("/player/"+players[3]+"/battles", "auth", greedy)
	expectError(t, resp, http.StatusTooManyRequests, "Rate limit exceeded")
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("the 429 of the game-API budget has no Retry-After")
	}
	if n := h.upstream.total.Load() - calls; n != 0 {
		t.Fatalf("a request past the budget reached the game API %d times", n)
	}
	if resp := h.get("/player/"+players[0]+"/battles", "auth", greedy); resp.StatusCode != http.StatusOK || resp.Header.Get("x-cached") != "true" {
		t.Fatalf("a cached answer past the budget: %d, x-cached %q", resp.StatusCode, resp.Header.Get("x-cached"))
	}
	if resp := h.get("/player/"+players[3]+"/battles", "auth", other); resp.StatusCode != http.StatusOK {
		t.Fatalf("another key's call: %d", resp.StatusCode)
	}
	h.clock.Advance(20 * time.Second)
	if resp := h.get("/clan/search?name=royal", "auth", greedy); resp.StatusCode != http.StatusOK {
		t.Fatalf("after the budget refilled: %d", resp.StatusCode)
	}
}
