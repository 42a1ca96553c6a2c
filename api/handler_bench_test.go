package api_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// BenchmarkServeCached measures the server's own work for one request —
// routing, middleware, handler, response headers and body, without the
// network — next to a bare Fiber app answering the same bytes: the
// difference is what authentication, rate limiting and Crowns' logic cost
// on top of the framework. The answers come from the caches, as in
// steady state.
func BenchmarkServeCached(b *testing.B) {
	h := newHarness(b, harnessOptions{config: func(c *api.Config) {
		c.RateLimitPerSecond, c.RateLimitBurst = 1e9, 1e9
		c.HistoryCacheTTL = time.Hour
		// Access lines formatted as in production, then dropped.
		c.AccessLines = io.Discard
	}})
	key := h.issue("40")
	unknown, err := keys.NewKey()
	if err != nil {
		b.Fatal(err)
	}
	clan := h.seedHistory(h.world.TrackableClanTags()[0], 7)
	cases := []struct {
		name    string
		path    string
		headers []string
		status  int
	}{
		{"history", "/clan/" + clan + "/history?days=7", []string{"auth", key, "Accept-Encoding", "gzip"}, http.StatusOK},
		{"battles", "/player/" + h.world.PlayerTags()[0] + "/battles", []string{"auth", key, "Accept-Encoding", "gzip"}, http.StatusOK},
		{"search", "/clan/search?name=royal&limit=3", []string{"auth", key, "Accept-Encoding", "gzip"}, http.StatusOK},
		{"unknown key", "/clan/" + clan + "/history", []string{"auth", unknown}, http.StatusUnauthorized},
		{"malformed key", "/clan/" + clan + "/history", []string{"auth", "crw_nope"}, http.StatusUnauthorized},
	}
	crowns := h.server.App().Handler()
	for _, c := range cases {
		req := fasthttp.AcquireRequest()
		req.SetRequestURI(c.path)
		for i := 0; i+1 < len(c.headers); i += 2 {
			req.Header.Set(c.headers[i], c.headers[i+1])
		}
		body := serveOnce(b, crowns, req, c.status)
		bare := fiber.New(fiber.Config{DisableStartupMessage: true})
		bare.Get("/*", func(ctx *fiber.Ctx) error {
			ctx.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
			return ctx.Send(body)
		})
		b.Run(c.name+"/bare", func(b *testing.B) { serveLoop(b, bare.Handler(), req, http.StatusOK) })
		b.Run(c.name+"/crowns", func(b *testing.B) { serveLoop(b, crowns, req, c.status) })
	}
}

// serveOnce runs handler on req, checks the status and returns a copy of
// the body.
func serveOnce(b *testing.B, handler fasthttp.RequestHandler, req *fasthttp.Request, want int) []byte {
	b.Helper()
	var ctx fasthttp.RequestCtx
	ctx.Init(req, nil, nil)
	handler(&ctx)
	if got := ctx.Response.StatusCode(); got != want {
		b.Fatalf("status %d, want %d: %s", got, want, ctx.Response.Body())
	}
	return append([]byte(nil), ctx.Response.Body()...)
}

// serveLoop runs handler on req b.N times.
func serveLoop(b *testing.B, handler fasthttp.RequestHandler, req *fasthttp.Request, want int) {
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	for b.Loop() {
		ctx.Init(req, nil, nil)
		handler(&ctx)
		if ctx.Response.StatusCode() != want {
			b.Fatalf("status %d, want %d", ctx.Response.StatusCode(), want)
		}
	}
}

// seedHistory tracks tag and stores a snapshot of every 4-hourly slot of
// the last days days, from the sandbox world; it returns the tag.
func (h *harness) seedHistory(tag string, days int) string {
	h.t.Helper()
	ctx := context.Background()
	now := h.clock.Now()
	from, _ := models.HistoryWindow(now, days)
	var history []models.HistorySnapshot
	var first models.ClanDetails
	for slot := from; !slot.After(now); slot = slot.Add(4 * time.Hour) {
		h.clock.Set(slot.Add(time.Minute))
		clan, err := h.client.Clan(ctx, tag)
		if err != nil {
			h.t.Fatalf("clan %s from the sandbox: %v", tag, err)
		}
		if slot.Equal(from) {
			first = clan
			continue
		}
		history = append(history, models.SnapshotOf(clan, slot))
	}
	h.clock.Set(now)
	tracked, err := h.clans.Track(ctx, models.TrackRequest{Tag: tag, Clan: first, By: models.TrackedByOperator, Now: from.Add(time.Minute)})
	if err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.clans.SaveSnapshots(ctx, tracked.Clan.ID, models.SnapshotFourHourly, history); err != nil {
		h.t.Fatal(err)
	}
	return tag
}

// benchManyKeys is how many developer keys BenchmarkServeCachedManyKeys
// spreads its requests over, as crowns-bench seeds.
const benchManyKeys = 10000

// BenchmarkServeCachedManyKeys is BenchmarkServeCached for a cached
// battles answer with the requests spread over many keys from parallel
// goroutines, as under load: each request finds its key's cache entry
// and rate bucket cold, and goroutines share the caches and the access
// log.
func BenchmarkServeCachedManyKeys(b *testing.B) {
	crowns, bare, requests := battlesOfManyKeys(b, benchManyKeys)
	b.Run("bare", func(b *testing.B) { serveParallel(b, bare, requests) })
	b.Run("crowns", func(b *testing.B) { serveParallel(b, crowns, requests) })
}

// battlesOfManyKeys issues keys developer keys and returns Crowns with a
// cached battles answer, a bare Fiber app answering its bytes, and one
// request of that answer per key, each answered once already.
func battlesOfManyKeys(b *testing.B, keys int) (crowns, bare fasthttp.RequestHandler, requests []*fasthttp.Request) {
	h := newHarness(b, harnessOptions{config: func(c *api.Config) {
		c.RateLimitPerSecond, c.RateLimitBurst = 1e9, 1e9
		// Every key is looked up once, all from one address.
		c.KeyLookupsPerAddress, c.KeyLookupsPerSecond = 1e9, 1e9
		c.AccessLines = io.Discard
	}})
	path := "/player/" + h.world.PlayerTags()[0] + "/battles"
	requests = make([]*fasthttp.Request, keys)
	for i := range requests {
		requests[i] = fasthttp.AcquireRequest()
		requests[i].SetRequestURI(path)
		requests[i].Header.Set("auth", h.issue(strconv.Itoa(1000+i)))
		requests[i].Header.Set("Accept-Encoding", "gzip")
	}
	crowns = h.server.App().Handler()
	for _, req := range requests {
		serveOnce(b, crowns, req, http.StatusOK)
	}
	body := serveOnce(b, crowns, requests[0], http.StatusOK)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/*", func(ctx *fiber.Ctx) error {
		ctx.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return ctx.Send(body)
	})
	return crowns, app.Handler(), requests
}

// BenchmarkServeCachedColdCaches is BenchmarkServeCachedManyKeys on one
// goroutine with the CPU caches stirred between requests (64 KiB copied,
// as a 15 KB answer and its request make the kernel copy about that much
// under load), so that each request finds its key's entries, the caches'
// indexes and its own buffers cold, as under load; the copy costs the
// bare app and Crowns alike.
func BenchmarkServeCachedColdCaches(b *testing.B) {
	crowns, bare, requests := battlesOfManyKeys(b, 2000)
	const stir = 64 << 10
	src, dst := make([]byte, 32*stir), make([]byte, 32*stir)
	run := func(b *testing.B, handler fasthttp.RequestHandler) {
		var ctx fasthttp.RequestCtx
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			off := i % 32 * stir
			copy(dst[off:off+stir], src[off:off+stir])
			ctx.Init(requests[i%len(requests)], nil, nil)
			handler(&ctx)
			if ctx.Response.StatusCode() != http.StatusOK {
				b.Fatalf("status %d", ctx.Response.StatusCode())
			}
		}
	}
	b.Run("bare", func(b *testing.B) { run(b, bare) })
	b.Run("crowns", func(b *testing.B) { run(b, crowns) })
}

// serveParallel runs handler from parallel goroutines, each going
// through requests in turn from its own starting point.
func serveParallel(b *testing.B, handler fasthttp.RequestHandler, requests []*fasthttp.Request) {
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var ctx fasthttp.RequestCtx
		i := int(next.Add(7919))
		for pb.Next() {
			i++
			ctx.Init(requests[i%len(requests)], nil, nil)
			handler(&ctx)
			if ctx.Response.StatusCode() != http.StatusOK {
				b.Fatalf("status %d", ctx.Response.StatusCode())
			}
		}
	})
}
