package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/crownsdev/crowns/upstream/sandbox"
)

// historyDays is the history window the bench asks for: today and the 7
// days before, 48 snapshots at most.
const historyDays = 7

// trackAddress is the tracking address of the bench's Crowns and sandbox
// world (the default of crowns).
const trackAddress = sandbox.DefaultTrackAddress

// unlimitedRate is the per-key rate limit of the bench's Crowns: the
// limiter still runs on every request, but Zipf's most popular keys, far
// above any real key's rate, are not refused.
const unlimitedRate = "1000000"

// hotBench is one run of the hot-route bench.
type hotBench struct {
	req      request
	dir      string
	progress func(string, ...any)
	crowns   *crownsProcess
	client   *loadClient
	report   *report
}

// runHot seeds a database, starts crowns serve on it, measures every row
// and reports.
func runHot(ctx context.Context, req request, stdout io.Writer, progress func(string, ...any)) error {
	dir, err := os.MkdirTemp("", "crowns-bench-")
	if err != nil {
		return err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	binary := req.crowns
	if binary == "" {
		progress("building crowns")
		if binary, err = buildCrowns(ctx, dir); err != nil {
			return err
		}
	}
	secret, err := newSecret()
	if err != nil {
		return err
	}
	dataDir := filepath.Join(dir, "data")
	if err := os.Mkdir(dataDir, 0o700); err != nil {
		return err
	}
	r := newReport(req)
	progress("seeding %d developer keys and %d tracked clans with %d days of 4-hourly history (%s)", req.keys, req.clans, historyDays+1, r.Database)
	world, err := seed(ctx, req, dataDir, secret, r)
	if err != nil {
		return err
	}
	env := map[string]string{
		"CROWNS_DATA_DIR":              dataDir,
		"CROWNS_DATABASE_URL":          req.databaseURL,
		"CROWNS_SECRET":                secret,
		"CROWNS_ROLES":                 "api",
		"CROWNS_TRACK_ADDRESS":         trackAddress,
		"CROWNS_RATE_LIMIT_PER_SECOND": unlimitedRate,
		"CROWNS_RATE_LIMIT_BURST":      unlimitedRate,
		// The bench is one client address standing for the many clients
		// of 10,000 keys: each key's first request is looked up.
		"CROWNS_KEY_LOOKUPS_PER_ADDRESS": unlimitedRate,
		"CROWNS_KEY_LOOKUPS_PER_SECOND":  unlimitedRate,
		"CROWNS_GAME_CALLS_PER_KEY":      unlimitedRate,
	}
	progress("starting %s serve (API role, in-process sandbox; its log in a temporary file)", binary)
	crowns, err := startCrowns(ctx, binary, filepath.Join(dir, "crowns.log"), env, freeLoopbackAddr)
	if err != nil {
		return err
	}
	defer crowns.stop()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go crowns.watchMemory(watchCtx, 100*time.Millisecond)

	b := &hotBench{req: req, dir: dir, progress: progress, crowns: crowns, client: newLoadClient(crowns.addr, req.connections), report: r}
	defer b.client.close()
	rows, err := b.rows(world)
	if err != nil {
		return err
	}
	b.warmKeys(ctx, world, rows)
	if req.wrkDir != "" {
		return b.exportForWrk(ctx, rows, req.wrkDir, stdout)
	}
	for _, row := range rows {
		if err := b.measure(ctx, row); err != nil {
			return crowns.explain(fmt.Errorf("%s, %s client: %w", row.name, row.clientName(), err))
		}
	}
	crowns.sampleMemory()
	r.PeakResidentBytes = crowns.peakResident()
	r.judge()
	r.print(stdout)
	if err := writeJSON(req.jsonPath, r); err != nil {
		return err
	}
	progress("results written to %s", req.jsonPath)
	return nil
}

// newSecret is a fresh CROWNS_SECRET: base64 of 32 random bytes.
func newSecret() (string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(raw), nil
}

// rowSpec is one row of the bench before it runs: its requests, as a
// sequence of draws both servers get in the same order, the client and
// the status a right answer has.
type rowSpec struct {
	name  string
	gzip  bool
	want  int
	draws []draw
}

// clientName names a row's client.
func (r rowSpec) clientName() string {
	if r.gzip {
		return "gzip"
	}
	return "identity"
}

// requests are the row's requests to the server at addr.
func (r rowSpec) requests(addr string) []loadRequest {
	out := make([]loadRequest, len(r.draws))
	for i, d := range r.draws {
		out[i] = loadRequest{uri: []byte("http://" + addr + d.uri), key: d.key, gzip: r.gzip}
	}
	return out
}

// measure fetches every distinct answer of row from Crowns once, starts a
// bare server process replaying them, then drives load at both in turns (rounds
// of a second each, duration in all per server) and records both rows.
func (b *hotBench) measure(ctx context.Context, row rowSpec) error {
	b.progress("%s, %s client: fetching its distinct answers from crowns", row.name, row.clientName())
	replay, err := fetchAnswers(ctx, b.crowns.addr, row)
	if err != nil {
		return err
	}
	bareAddr, barePID, stopBare, err := startBareProcess(ctx, b.dir, replay)
	if err != nil {
		return err
	}
	defer stopBare()
	bareClient := newLoadClient(bareAddr, b.req.connections)
	defer bareClient.close()
	crownsRequests, bareRequests := row.requests(b.crowns.addr), row.requests(bareAddr)

	rounds := max(1, int(b.req.duration/time.Second))
	slice := b.req.duration / time.Duration(rounds)
	b.progress("%s, %s client: %d distinct answers; %d rounds of %s against bare and crowns", row.name, row.clientName(), len(replay[clientIndex(row.gzip)]), rounds, slice)
	var crownsOut, bareOut loadOutcome
	var spent statements
	var crownsCPU, bareCPU cpuSpent
	roundRatios := make([]float64, 0, rounds)
	for range rounds {
		out, cpu := measureCPU(barePID, func() loadOutcome { return bareClient.drive(ctx, bareRequests, row.want, slice, 0) })
		bareOut.add(out)
		bareCPU.add(cpu)
		bareRate := out.perSecond()
		before, err := b.crowns.statements()
		if err != nil {
			return err
		}
		out, cpu = measureCPU(b.crowns.cmd.Process.Pid, func() loadOutcome { return b.client.drive(ctx, crownsRequests, row.want, slice, 0) })
		crownsOut.add(out)
		crownsCPU.add(cpu)
		if bareRate > 0 {
			roundRatios = append(roundRatios, out.perSecond()/bareRate)
		}
		after, err := b.crowns.statements()
		if err != nil {
			return err
		}
		spent.request += after.request - before.request
		spent.background += after.background - before.background
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	example := row.draws[0].uri
	baseline := b.report.row(row.name, row.clientName(), "bare", example, bareOut, statements{}, bareCPU)
	crowns := b.report.row(row.name, row.clientName(), "crowns", example, crownsOut, spent, crownsCPU)
	crowns.RoundRatios = roundRatios
	crowns.compare(baseline)
	return nil
}

// fetchAnswers asks Crowns every distinct request of row once, with the
// row's first key for that URI, and returns the answers; each must have
// the row's status.
func fetchAnswers(ctx context.Context, addr string, row rowSpec) (answers, error) {
	var replay answers
	replay[0], replay[1] = map[string]answer{}, map[string]answer{}
	byURI := replay[clientIndex(row.gzip)]
	var distinct []draw
	for _, d := range row.draws {
		if _, seen := byURI[d.uri]; !seen {
			byURI[d.uri] = answer{}
			distinct = append(distinct, d)
		}
	}
	fetched, err := fetchAll(ctx, addr, distinct, row.gzip)
	if err != nil {
		return replay, err
	}
	for i, a := range fetched {
		if a.Status != row.want {
			return replay, fmt.Errorf("%s: GET %s answered %d, want %d: %.200s", row.name, distinct[i].uri, a.Status, row.want, a.Body)
		}
		byURI[distinct[i].uri] = a
	}
	return replay, nil
}

// sizeLabel is a body size for the table.
func sizeLabel(n int64) string {
	if n >= 1<<10 {
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// warmKeys sends one request with every key the rows use, so that the
// rows measure the steady state, every key's verdict in memory, and not
// the first use of each key, which is looked up in the database.
func (b *hotBench) warmKeys(ctx context.Context, world seeded, rows []rowSpec) {
	uri := fmt.Sprintf("/clan/%s/history?days=%d", world.tags[0], historyDays)
	seen := map[string]bool{}
	var warm []loadRequest
	for _, row := range rows {
		for _, d := range row.draws {
			if !seen[d.key] {
				seen[d.key] = true
				warm = append(warm, loadRequest{uri: []byte("http://" + b.crowns.addr + uri), key: d.key, gzip: true})
			}
		}
	}
	b.progress("warming the verdicts of %d keys, one request each", len(warm))
	rounds := (len(warm) + len(b.client.conns) - 1) / len(b.client.conns)
	b.client.drive(ctx, warm, 0, time.Hour, rounds)
}
