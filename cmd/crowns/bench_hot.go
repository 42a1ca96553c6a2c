package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/crownsdev/crowns/keys"
)

// benchHistoryDays is the history window the bench asks for: today and
// the 7 days before, 48 snapshots at most.
const benchHistoryDays = 7

// benchSearchNames are the clan-name searches of the bench (words of the
// sandbox's clan names), three results each: small answers.
var benchSearchNames = []string{"royal", "dark", "golden", "silent", "wild", "iron", "crimson", "frozen", "mighty", "brave"}

// Sizes of the rotations of the unauthenticated routes.
const (
	benchUnknownKeys   = 1000
	benchMalformedKeys = 100
)

// benchRoute is one route of the bench: the requests of its rotation and
// the status a right answer has.
type benchRoute struct {
	name     string
	requests []loadRequest
	want     int
}

// hotBench is one run of the hot-route bench.
type hotBench struct {
	env    cli
	cfg    config
	req    benchRequest
	node   *node
	report *benchReport
	crowns *loadClient
}

// runHotBench starts Crowns, seeds it, measures the routes and reports.
func runHotBench(ctx context.Context, env cli, cfg config, req benchRequest) error {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devNull.Close()
	// Crowns logs every request, as in production, through the buffered
	// output serve uses; the lines are dropped.
	logOut := newBufferedLog(devNull)
	defer logOut.Close()
	log := newBufferedLogger(logOut, cfg)
	benchProgress(env, "starting Crowns (%s) with the sandbox upstream", benchDatabaseName(cfg))
	n, err := startNode(ctx, cfg, cli{getenv: env.getenv, stdout: io.Discard, stderr: env.stderr, clock: env.clock}, log)
	if err != nil {
		return err
	}
	defer n.shutdown(cfg, log)
	if err := ensureEmptyDatabase(ctx, n); err != nil {
		return err
	}
	b := &hotBench{env: env, cfg: cfg, req: req, node: n, report: newBenchReport(cfg, req)}
	return b.run(ctx)
}

func (b *hotBench) run(ctx context.Context) error {
	benchProgress(b.env, "seeding %d developer keys", b.req.keys)
	began := time.Now()
	devKeys, err := seedKeys(ctx, b.node.keys, b.req.keys)
	if err != nil {
		return err
	}
	b.report.SeedKeysSeconds = time.Since(began).Seconds()
	benchProgress(b.env, "seeding %d tracked clans with %d days of 4-hourly history", b.req.clans, benchHistoryDays+1)
	began = time.Now()
	tags, worldClans := benchClanTags(b.req.clans, b.cfg.TrackAddress)
	if err := seedClans(ctx, b.node.clans, tags, worldClans, benchHistoryDays, b.env.clock.Now(), b.cfg.TrackAddress); err != nil {
		return err
	}
	b.report.SeedClansSeconds = time.Since(began).Seconds()

	addr := b.node.listen.Addr().String()
	b.crowns = newLoadClient(addr, b.req.connections)
	defer b.crowns.close()
	history := b.historyRoute(addr, devKeys, tags, true)
	identity := b.historyRoute(addr, devKeys, tags, false)
	identity.name = "history, identity client"
	battles := b.battlesRoute(addr, devKeys)
	search := b.searchRoute(addr, devKeys)
	unknown, malformed, err := b.refusedRoutes(addr, tags)
	if err != nil {
		return err
	}

	benchProgress(b.env, "warming the caches and sizing the bare routes")
	sizes := map[string]int64{}
	for _, route := range []benchRoute{history, battles, search} {
		sizes[route.name] = b.warm(ctx, b.crowns, route).meanBody()
	}
	bare, err := startBareServer(map[string][]byte{
		"/small":   fixedBody(sizes[search.name]),
		"/battles": fixedBody(sizes[battles.name]),
		"/history": fixedBody(sizes[history.name]),
	})
	if err != nil {
		return err
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = bare.stop(stopCtx)
	}()
	bareLoad := newLoadClient(bare.addr(), b.req.connections)
	defer bareLoad.close()
	bareRoute := func(name, path string) benchRoute {
		return benchRoute{name: name, want: http.StatusOK, requests: []loadRequest{{uri: []byte("http://" + bare.addr() + path), gzip: true}}}
	}

	bareSmall := b.measure(ctx, bareLoad, bareRoute("bare small", "/small"), "bare")
	b.measure(ctx, b.crowns, search, "crowns").compare(bareSmall, targetSmallRatio)
	b.measure(ctx, b.crowns, unknown, "crowns").compare(bareSmall, targetSmallRatio)
	b.measure(ctx, b.crowns, malformed, "crowns").compare(bareSmall, targetSmallRatio)
	bareBattles := b.measure(ctx, bareLoad, bareRoute("bare, battles size", "/battles"), "bare")
	b.measure(ctx, b.crowns, battles, "crowns").compare(bareBattles, targetLargeRatio)
	bareHistory := b.measure(ctx, bareLoad, bareRoute("bare, history size", "/history"), "bare")
	b.measure(ctx, b.crowns, history, "crowns").compare(bareHistory, targetLargeRatio)
	b.measure(ctx, b.crowns, identity, "crowns")
	if err := ctx.Err(); err != nil {
		return err
	}

	b.report.ResidentBytes, b.report.PeakBytes = residentMemory()
	b.report.judge()
	b.report.print(b.env.stdout)
	if err := writeJSON(b.req.jsonPath, b.report); err != nil {
		return err
	}
	benchProgress(b.env, "results written to %s", b.req.jsonPath)
	return nil
}

// warm sends every request of route once.
func (b *hotBench) warm(ctx context.Context, client *loadClient, route benchRoute) loadOutcome {
	rounds := (len(route.requests) + b.req.connections - 1) / b.req.connections
	return client.drive(ctx, route.requests, route.want, 0, max(rounds, 1))
}

// measure warms a route, drives load at it for the configured duration
// and records the outcome with the statements requests sent meanwhile.
func (b *hotBench) measure(ctx context.Context, client *loadClient, route benchRoute, server string) *benchRow {
	benchProgress(b.env, "%s: %s of load", route.name, b.req.duration)
	b.warm(ctx, client, route)
	store := b.node.store
	queries, background := store.QueryCount(), store.BackgroundQueryCount()
	outcome := client.drive(ctx, route.requests, route.want, b.req.duration, 0)
	background = store.BackgroundQueryCount() - background
	queries = store.QueryCount() - queries - background
	row := b.report.row(route.name, server, exampleOf(route), outcome, queries, background)
	row.countsForQueryCheck = server == "crowns"
	return row
}

// meanBody is the mean body size of the right answers of an outcome.
func (o loadOutcome) meanBody() int64 {
	if ok := o.requests - o.errors; ok > 0 {
		return o.bodyBytes / ok
	}
	return 0
}

// exampleOf is the path of the first request of a route.
func exampleOf(route benchRoute) string {
	uri := string(route.requests[0].uri)
	if i := strings.Index(strings.TrimPrefix(uri, "http://"), "/"); i >= 0 {
		return strings.TrimPrefix(uri, "http://")[i:]
	}
	return uri
}

// historyRoute asks the 7-day history of every seeded clan, with every
// key in turn.
func (b *hotBench) historyRoute(addr string, devKeys, tags []string, gzip bool) benchRoute {
	route := benchRoute{name: "history (days=7)", want: http.StatusOK}
	for i := range max(len(devKeys), len(tags)) {
		route.requests = append(route.requests, loadRequest{
			uri:  fmt.Appendf(nil, "http://%s/clan/%s/history?days=%d", addr, tags[i%len(tags)], benchHistoryDays),
			key:  devKeys[i%len(devKeys)],
			gzip: gzip,
		})
	}
	return route
}

// battlesRoute asks the battles of the sandbox's sample players.
func (b *hotBench) battlesRoute(addr string, devKeys []string) benchRoute {
	players := b.node.game.world.PlayerTags()
	route := benchRoute{name: "player battles (cached)", want: http.StatusOK}
	for i := range max(len(devKeys), len(players)) {
		route.requests = append(route.requests, loadRequest{
			uri:  fmt.Appendf(nil, "http://%s/player/%s/battles", addr, players[i%len(players)]),
			key:  devKeys[i%len(devKeys)],
			gzip: true,
		})
	}
	return route
}

// searchRoute asks a few clan-name searches of three results.
func (b *hotBench) searchRoute(addr string, devKeys []string) benchRoute {
	route := benchRoute{name: "clan search (cached)", want: http.StatusOK}
	for i := range max(len(devKeys), len(benchSearchNames)) {
		route.requests = append(route.requests, loadRequest{
			uri:  fmt.Appendf(nil, "http://%s/clan/search?name=%s&limit=3", addr, benchSearchNames[i%len(benchSearchNames)]),
			key:  devKeys[i%len(devKeys)],
			gzip: true,
		})
	}
	return route
}

// refusedRoutes are history requests with well-formed keys no database
// knows, and with malformed keys (a wrong checksum): both 401.
func (b *hotBench) refusedRoutes(addr string, tags []string) (unknown, malformed benchRoute, err error) {
	unknown = benchRoute{name: "401, unknown key", want: http.StatusUnauthorized}
	malformed = benchRoute{name: "401, malformed key", want: http.StatusUnauthorized}
	for i := range benchUnknownKeys {
		key, err := keys.NewKey()
		if err != nil {
			return unknown, malformed, err
		}
		uri := fmt.Appendf(nil, "http://%s/clan/%s/history?days=%d", addr, tags[i%len(tags)], benchHistoryDays)
		unknown.requests = append(unknown.requests, loadRequest{uri: uri, key: key, gzip: true})
		if i < benchMalformedKeys {
			last := "A"
			if strings.HasSuffix(key, last) {
				last = "B"
			}
			broken := key[:len(key)-1] + last
			malformed.requests = append(malformed.requests, loadRequest{uri: uri, key: broken, gzip: true})
		}
	}
	return unknown, malformed, nil
}
