package api_test

import (
	"bytes"
	"net/http"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/crownsdev/crowns/api"
)

// TestCachedAnswersAllocateNothing: once an answer and the key's verdict
// are cached, serving it again allocates nothing — no garbage for the
// collector on the hot path — with the access lines written directly, as
// crowns serve writes them, for gzip and identity clients alike.
func TestCachedAnswersAllocateNothing(t *testing.T) {
	if raceDetector {
		t.Skip("allocation counts mean nothing under the race detector; .ci/run runs this test without it")
	}
	var lines bytes.Buffer
	h := newHarness(t, harnessOptions{directAccessLog: true, config: func(c *api.Config) {
		c.RatePerSecond, c.RateBurst = 1e9, 1e9
		c.HistoryCacheTTL = time.Hour
		c.AccessLines = &lines
	}})
	key := h.issue("50")
	clan := h.seedHistory(h.world.TrackableClanTags()[0], 7)
	handler := h.server.App().Handler()
	for _, path := range []string{
		"/clan/search?name=royal&limit=3",
		"/player/" + h.world.PlayerTags()[0] + "/battles",
		"/clan/" + clan + "/history?days=7",
	} {
		for _, gzip := range []bool{true, false} {
			req := fasthttp.AcquireRequest()
			req.SetRequestURI(path)
			req.Header.Set("auth", key)
			if gzip {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			var ctx fasthttp.RequestCtx
			ctx.Init(req, nil, nil) // which allocates itself
			serve := func() {
				lines.Reset()
				ctx.Response.Reset()
				handler(&ctx)
			}
			serve() // caches the answer (and an identity client's plain form)
			serve()
			if status := ctx.Response.StatusCode(); status != http.StatusOK {
				t.Fatalf("%s (gzip %v): status %d", path, gzip, status)
			}
			if lines.Len() == 0 {
				t.Fatalf("%s: no access line was written", path)
			}
			if allocs := testing.AllocsPerRun(50, serve); allocs > 0 {
				t.Errorf("%s (gzip %v): %.1f allocations per cached answer", path, gzip, allocs)
			}
			fasthttp.ReleaseRequest(req)
		}
	}
}
