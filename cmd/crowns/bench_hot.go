package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
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
	// bare routes are asked of the bare server.
	bare bool
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
	var (
		logOut *bufferedLog
		log    *slog.Logger
		n      *node
	)
	benchProgress(env, "starting Crowns (%s) with the sandbox upstream", benchDatabaseName(cfg))
	asPart(ctx, partCrowns, func(ctx context.Context) {
		logOut = newBufferedLog(devNull)
		log = newBufferedLogger(logOut, cfg)
		n, err = startNode(ctx, cfg, cli{getenv: env.getenv, stdout: io.Discard, stderr: env.stderr, clock: env.clock}, log)
	})
	defer logOut.Close()
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
	// The bare server has Crowns' routes and gets the very same requests
	// (paths, keys, headers); it answers fixed bytes of the sizes Crowns
	// answers.
	var bare *bareServer
	asPart(ctx, partBare, func(context.Context) {
		bare, err = startBareServer([]bareRoute{
			{path: "/clan/search", body: fixedBody(sizes[search.name])},
			{path: "/player/:tag/battles", body: fixedBody(sizes[battles.name])},
			{path: "/clan/:tag/history", body: fixedBody(sizes[history.name])},
		})
	})
	if err != nil {
		return err
	}
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = bare.stop(stopCtx)
	}()
	// Seeding and warming produced garbage a deployment's API process
	// never holds at once; it goes back to the system before the load, so
	// resident memory at the end is that of the steady state.
	debug.FreeOSMemory()
	bareLoad := newLoadClient(bare.addr(), b.req.connections)
	defer bareLoad.close()
	bareSmall := b.searchRoute(bare.addr(), devKeys)
	bareSmall.name = "bare small"
	bareBattles := b.battlesRoute(bare.addr(), devKeys)
	bareBattles.name = "bare, battles size"
	bareHistory := b.historyRoute(bare.addr(), devKeys, tags, true)
	bareHistory.name = "bare, history size"
	for _, route := range []*benchRoute{&bareSmall, &bareBattles, &bareHistory} {
		route.bare = true
	}

	stopProfile, err := startCPUProfile(b.req.cpuProfile)
	if err != nil {
		return err
	}
	for _, group := range []benchGroup{
		{baseline: &bareSmall, routes: []benchRoute{search, unknown, malformed}, want: []float64{targetSmallRatio, targetSmallRatio, targetSmallRatio}},
		{baseline: &bareBattles, routes: []benchRoute{battles}, want: []float64{targetLargeRatio}},
		{baseline: &bareHistory, routes: []benchRoute{history}, want: []float64{targetLargeRatio}},
		// The rare client that does not take gzip, which gets large answers
		// inflated on the fly, has no target; alone, its heavier turns do
		// not weigh on the others.
		{routes: []benchRoute{identity}, want: []float64{0}},
	} {
		b.measureGroup(ctx, bareLoad, group)
	}
	if err := stopProfile(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	b.report.ResidentBytes, b.report.PeakBytes, b.report.ResidentFileBytes = residentMemory()
	b.report.GoHeapBytes, b.report.GoRetainedBytes = goMemory()
	if err := writeHeapProfile(b.req.memProfile); err != nil {
		return err
	}
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

// benchSlice is the length of one turn of a route in a group's rounds.
const benchSlice = time.Second

// benchGroup is routes compared with one bare route (none: no
// comparison). They take turns in rounds of benchSlice each (duration in
// all per route), so whatever else the shared machine does weighs on all
// of them alike.
type benchGroup struct {
	baseline *benchRoute
	routes   []benchRoute
	// want is the ratio to the baseline each route should reach (0: no
	// target).
	want []float64
}

// measureGroup warms the routes of a group, drives load at them in turns
// and records each with the statements its requests sent.
func (b *hotBench) measureGroup(ctx context.Context, bare *loadClient, g benchGroup) {
	var members []benchRoute
	if g.baseline != nil {
		members = append(members, *g.baseline)
	}
	members = append(members, g.routes...)
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = m.name
	}
	rounds := max(1, int(b.req.duration/benchSlice))
	slice := b.req.duration / time.Duration(rounds)
	benchProgress(b.env, "%s: %d rounds of %s each", strings.Join(names, ", "), rounds, slice)
	clientOf := func(route benchRoute) *loadClient {
		if route.bare {
			return bare
		}
		return b.crowns
	}
	for _, route := range members {
		b.warm(ctx, clientOf(route), route)
	}
	outcomes := make([]loadOutcome, len(members))
	queries := make([]int64, len(members))
	background := make([]int64, len(members))
	db := b.node.db
	for range rounds {
		for i, m := range members {
			q, bg := db.QueryCount(), db.BackgroundQueryCount()
			outcomes[i].add(clientOf(m).drive(ctx, m.requests, m.want, slice, 0))
			bg = db.BackgroundQueryCount() - bg
			background[i] += bg
			queries[i] += db.QueryCount() - q - bg
		}
	}
	var baseline *benchRow
	first := 0
	if g.baseline != nil {
		baseline = b.report.row(g.baseline.name, "bare", exampleOf(*g.baseline), outcomes[0], 0, background[0])
		first = 1
	}
	for i, route := range g.routes {
		server := "crowns"
		if route.bare {
			server = "bare"
		}
		m := first + i
		row := b.report.row(route.name, server, exampleOf(route), outcomes[m], queries[m], background[m])
		row.Informational = g.want[i] == 0
		// An informational row has no target, the query check included:
		// its queries are still shown. (The identity client's turn comes
		// last, when the history answers warmed together reach their TTL
		// together and are revalidated, a fingerprint query each, at its
		// rate of a few thousand requests a second.)
		row.countsForQueryCheck = !route.bare && !row.Informational
		if baseline != nil {
			row.compare(baseline, g.want[i])
		}
	}
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

// historyURIs are the URLs of the 7-day history of each seeded clan.
func historyURIs(addr string, tags []string) [][]byte {
	uris := make([][]byte, len(tags))
	for i, tag := range tags {
		uris[i] = fmt.Appendf(nil, "http://%s/clan/%s/history?days=%d", addr, tag, benchHistoryDays)
	}
	return uris
}

// rotation pairs every URL of uris with every key of devKeys in turn:
// max(len(uris), len(devKeys)) requests, each URL and key used alike.
func rotation(uris [][]byte, devKeys []string, gzip bool) []loadRequest {
	requests := make([]loadRequest, max(len(uris), len(devKeys)))
	for i := range requests {
		requests[i] = loadRequest{uri: uris[i%len(uris)], key: devKeys[i%len(devKeys)], gzip: gzip}
	}
	return requests
}

// historyRoute asks the 7-day history of every seeded clan, with every
// key in turn.
func (b *hotBench) historyRoute(addr string, devKeys, tags []string, gzip bool) benchRoute {
	return benchRoute{name: "history (days=7)", want: http.StatusOK, requests: rotation(historyURIs(addr, tags), devKeys, gzip)}
}

// battlesRoute asks the battles of the sandbox's sample players.
func (b *hotBench) battlesRoute(addr string, devKeys []string) benchRoute {
	var uris [][]byte
	for _, player := range b.node.game.world.PlayerTags() {
		uris = append(uris, fmt.Appendf(nil, "http://%s/player/%s/battles", addr, player))
	}
	return benchRoute{name: "player battles (cached)", want: http.StatusOK, requests: rotation(uris, devKeys, true)}
}

// searchRoute asks a few clan-name searches of three results.
func (b *hotBench) searchRoute(addr string, devKeys []string) benchRoute {
	var uris [][]byte
	for _, name := range benchSearchNames {
		uris = append(uris, fmt.Appendf(nil, "http://%s/clan/search?name=%s&limit=3", addr, name))
	}
	return benchRoute{name: "clan search (cached)", want: http.StatusOK, requests: rotation(uris, devKeys, true)}
}

// refusedRoutes are history requests with well-formed keys no database
// knows, and with malformed keys (a wrong checksum): both 401.
func (b *hotBench) refusedRoutes(addr string, tags []string) (unknown, malformed benchRoute, err error) {
	var unknownKeys, malformedKeys []string
	for i := range benchUnknownKeys {
		key, err := keys.NewKey()
		if err != nil {
			return unknown, malformed, err
		}
		unknownKeys = append(unknownKeys, key)
		if i < benchMalformedKeys {
			last := "A"
			if strings.HasSuffix(key, last) {
				last = "B"
			}
			malformedKeys = append(malformedKeys, key[:len(key)-1]+last)
		}
	}
	uris := historyURIs(addr, tags)
	unknown = benchRoute{name: "401, unknown key", want: http.StatusUnauthorized, requests: rotation(uris, unknownKeys, true)}
	malformed = benchRoute{name: "401, malformed key", want: http.StatusUnauthorized, requests: rotation(uris, malformedKeys, true)}
	return unknown, malformed, nil
}
