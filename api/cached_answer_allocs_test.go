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
		c.RateLimitPerSecond, c.RateLimitBurst = 1e9, 1e9
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

// TestUnpackedAnswersAllocateNothing: an identity client of an answer
// whose plain form the cache has no room for is served from its packed
// form, unpacked into the response's pooled body buffer, allocating nothing,
// and gets the whole answer.
func TestUnpackedAnswersAllocateNothing(t *testing.T) {
	if raceDetector {
		t.Skip("allocation counts mean nothing under the race detector; .ci/run runs this test without it")
	}
	var lines bytes.Buffer
	// Room for the battles answer compressed and packed, not plain.
	h := newHarness(t, harnessOptions{directAccessLog: true, config: func(c *api.Config) {
		c.RateLimitPerSecond, c.RateLimitBurst = 1e9, 1e9
		c.CacheBytes = 64 << 10
		c.AccessLines = &lines
	}})
	key := h.issue("50")
	path := "/player/" + h.world.PlayerTags()[0] + "/battles"
	want := gunzipBody(t, h.get(path, "auth", key, "Accept-Encoding", "gzip"))
	if len(want) <= 64<<10 {
		t.Fatalf("the plain answer is %d bytes: it would fit the budget", len(want))
	}
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	req.SetRequestURI(path)
	req.Header.Set("auth", key)
	var ctx fasthttp.RequestCtx
	ctx.Init(req, nil, nil)
	handler := h.server.App().Handler()
	serve := func() {
		lines.Reset()
		ctx.Response.Reset()
		handler(&ctx)
	}
	for i := range 3 { // inflated and packed, then unpacked
		serve()
		if status, body := ctx.Response.StatusCode(), ctx.Response.Body(); status != http.StatusOK || !bytes.Equal(body, want) {
			t.Fatalf("request %d: status %d, %d bytes that differ from the inflated gzip body", i, status, len(body))
		}
	}
	if allocs := testing.AllocsPerRun(50, serve); allocs > 0 {
		t.Errorf("%.1f allocations per unpacked answer", allocs)
	}
}
