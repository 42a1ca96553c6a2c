package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// row is one row of a bench run (one route, one client, one server), as
// printed and written to JSON.
type row struct {
	Route  string `json:"route"`
	Client string `json:"client"`
	Server string `json:"server"`
	// Example is the first request of the row's sequence.
	Example string `json:"example"`
	// BodyBytes is the mean size of an answer's body on the wire.
	BodyBytes         int64   `json:"bodyBytes"`
	Requests          int64   `json:"requests"`
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	P50Ms             float64 `json:"p50Ms"`
	P99Ms             float64 `json:"p99Ms"`
	Errors            int64   `json:"errors"`
	// RequestStatements counts the statements request work sent during
	// the row's run, as Crowns' metrics count them; BackgroundStatements
	// those of background work meanwhile (key-event sync, last-use flush).
	RequestStatements    int64   `json:"requestStatements"`
	BackgroundStatements int64   `json:"backgroundStatements"`
	StatementsPerRequest float64 `json:"statementsPerRequest"`
	// ServerCPUMicros and ClientCPUMicros are the CPU time, in
	// microseconds per request, the server process and the load generator
	// spent (user and system, from /proc; 10 ms resolution over the run):
	// where a ratio's gap goes.
	ServerCPUMicros float64 `json:"serverCpuMicrosPerRequest"`
	ClientCPUMicros float64 `json:"clientCpuMicrosPerRequest"`
	// RatioToBare is requests/s against those of the bare row of the same
	// route and client; TargetRatio what it should reach (by body size).
	RatioToBare float64 `json:"ratioToBare,omitempty"`
	TargetRatio float64 `json:"targetRatio,omitempty"`
	// RoundRatios are the ratios of each round (Crowns' requests/s
	// against the bare server's in the round just before): how far the
	// shared machine moves the ratio within one run.
	RoundRatios []float64 `json:"roundRatios,omitempty"`
	// Missed lists the targets a Crowns row missed: ratio, p99,
	// statements, errors.
	Missed []string `json:"missed,omitempty"`
}

// target is one goal and whether this run met it.
type target struct {
	Target string `json:"target"`
	Got    string `json:"got"`
	Met    bool   `json:"met"`
}

// report is the whole of a bench run.
type report struct {
	Database         string  `json:"database"`
	GoVersion        string  `json:"goVersion"`
	CPUs             int     `json:"cpus"`
	Note             string  `json:"note"`
	Duration         string  `json:"durationPerRow"`
	Connections      int     `json:"connections"`
	Keys             int     `json:"keys"`
	Clans            int     `json:"clans"`
	SeedKeysSeconds  float64 `json:"seedKeysSeconds"`
	SeedClansSeconds float64 `json:"seedClansSeconds"`
	Rows             []*row  `json:"rows"`
	// PeakResidentBytes is the largest VmRSS of the crowns process
	// sampled during the run.
	PeakResidentBytes int64    `json:"peakResidentBytes"`
	Targets           []target `json:"targets"`
}

// sharedCoresNote says why only ratios within one run mean anything.
const sharedCoresNote = "the load generator, the bare server and crowns share the machine's cores " +
	"(PostgreSQL too, when used): compare ratios within one run, not absolute numbers across machines or runs"

// Targets.
const (
	targetLargeRatio = 0.9
	targetSmallRatio = 0.8
	// largeAnswer is the body size from which an answer is large.
	largeAnswer = 8 << 10
	targetP99   = 20 * time.Millisecond
	// targetResident is the 150 MB, in bytes: 150 million (143.1
	// MiB), the stricter reading, not 150 MiB.
	targetResident   = 150_000_000
	targetStatements = 0
)

// newReport starts the report of a run.
func newReport(req request) *report {
	return &report{
		Database:    databaseName(req.databaseURL),
		GoVersion:   runtime.Version(),
		CPUs:        runtime.NumCPU(),
		Note:        sharedCoresNote,
		Duration:    req.duration.String(),
		Connections: req.connections,
		Keys:        req.keys,
		Clans:       req.clans,
	}
}

// databaseName names the engine for the report, without a password.
func databaseName(url string) string {
	if url == "" {
		return "sqlite (temporary file)"
	}
	if at := strings.LastIndex(url, "@"); at >= 0 {
		return "postgres (" + url[at+1:] + ")"
	}
	return "postgres"
}

// row records a row's outcome.
func (r *report) row(route, client, server, example string, outcome loadOutcome, spent statements, cpu cpuSpent) *row {
	out := &row{
		Route:                route,
		Client:               client,
		Server:               server,
		Example:              example,
		Requests:             outcome.requests,
		RequestsPerSecond:    outcome.perSecond(),
		P50Ms:                milliseconds(outcome.latency.quantile(0.50)),
		P99Ms:                milliseconds(outcome.latency.quantile(0.99)),
		Errors:               outcome.errors,
		RequestStatements:    int64(spent.request),
		BackgroundStatements: int64(spent.background),
	}
	if ok := outcome.requests - outcome.errors; ok > 0 {
		out.BodyBytes = outcome.bodyBytes / ok
	}
	if outcome.requests > 0 {
		out.StatementsPerRequest = spent.request / float64(outcome.requests)
		out.ServerCPUMicros = float64(cpu.server.Microseconds()) / float64(outcome.requests)
		out.ClientCPUMicros = float64(cpu.client.Microseconds()) / float64(outcome.requests)
	}
	r.Rows = append(r.Rows, out)
	return out
}

// compare sets the ratio of a Crowns row to its bare row, the ratio it
// should reach, and the targets it missed.
func (rw *row) compare(bare *row) {
	if bare.RequestsPerSecond > 0 {
		rw.RatioToBare = rw.RequestsPerSecond / bare.RequestsPerSecond
	}
	rw.TargetRatio = targetSmallRatio
	if rw.BodyBytes > largeAnswer {
		rw.TargetRatio = targetLargeRatio
	}
	if rw.RatioToBare < rw.TargetRatio {
		rw.Missed = append(rw.Missed, "ratio")
	}
	if rw.P99Ms > milliseconds(targetP99) {
		rw.Missed = append(rw.Missed, "p99")
	}
	if rw.StatementsPerRequest > targetStatements {
		rw.Missed = append(rw.Missed, "statements")
	}
	if rw.Errors > 0 || bare.Errors > 0 {
		rw.Missed = append(rw.Missed, "errors")
	}
}

func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// judge fills in the run's targets from its rows.
func (r *report) judge() {
	r.Targets = nil
	met, crownsRows := 0, 0
	for _, rw := range r.Rows {
		if rw.Server != "crowns" {
			continue
		}
		crownsRows++
		if len(rw.Missed) == 0 {
			met++
		}
	}
	r.Targets = append(r.Targets,
		target{Target: fmt.Sprintf("every row: ≥ %.1f× bare over %d KiB, ≥ %.1f× below; p99 ≤ %d ms at %d connections; %d statements/request; no errors",
			targetLargeRatio, largeAnswer>>10, targetSmallRatio, targetP99.Milliseconds(), r.Connections, targetStatements),
			Got: fmt.Sprintf("%d of %d rows", met, crownsRows), Met: met == crownsRows},
		target{Target: fmt.Sprintf("resident memory of crowns ≤ %d MB (largest VmRSS sampled)", targetResident/1_000_000),
			Got: megabytes(r.PeakResidentBytes), Met: r.PeakResidentBytes > 0 && r.PeakResidentBytes <= targetResident},
	)
}

// megabytes writes a number of bytes in megabytes (millions of bytes), the
// unit of the memory target, and in mebibytes, the unit of ps and top.
func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB (%.1f MiB)", float64(n)/1e6, float64(n)/(1<<20))
}

// print writes the table and the targets.
func (r *report) print(w io.Writer) {
	fmt.Fprintf(w, "\ncrowns-bench — %s, %d CPUs, %d connections, %s per row, %d keys, %d tracked clans, Zipf s=1\n",
		r.Database, r.CPUs, r.Connections, r.Duration, r.Keys, r.Clans)
	fmt.Fprintf(w, "(%s)\n\n", r.Note)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "route\tclient\tserver\tbody\treq/s\tp50 ms\tp99 ms\terrors\tcpu µs/req server+client\tdb st/req\tvs bare [rounds]\ttarget\t")
	for _, rw := range r.Rows {
		statementsPerRequest, ratio, verdict := "", "", ""
		if rw.Server == "crowns" {
			statementsPerRequest = fmt.Sprintf("%.4f", rw.StatementsPerRequest)
			ratio = fmt.Sprintf("%.2f×%s (≥%.1f)", rw.RatioToBare, spread(rw.RoundRatios), rw.TargetRatio)
			verdict = "met"
			if len(rw.Missed) > 0 {
				verdict = "MISSED " + strings.Join(rw.Missed, ",")
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.0f\t%.2f\t%.2f\t%d\t%.1f+%.1f\t%s\t%s\t%s\t\n",
			rw.Route, rw.Client, rw.Server, sizeLabel(rw.BodyBytes), rw.RequestsPerSecond, rw.P50Ms, rw.P99Ms, rw.Errors,
			rw.ServerCPUMicros, rw.ClientCPUMicros, statementsPerRequest, ratio, verdict)
	}
	_ = tw.Flush()
	var background int64
	for _, rw := range r.Rows {
		background += rw.BackgroundStatements
	}
	fmt.Fprintf(w, "\nbackground statements during the crowns runs (key-event sync, last-use flush): %d\n", background)
	fmt.Fprintf(w, "seeding: %d keys in %.1f s, %d clans with history in %.1f s\n", r.Keys, r.SeedKeysSeconds, r.Clans, r.SeedClansSeconds)
	fmt.Fprintf(w, "resident memory of crowns (largest VmRSS sampled): %s\n\ntargets:\n", megabytes(r.PeakResidentBytes))
	printTargets(w, r.Targets)
}

// spread is the range of a row's round ratios, " [lowest–highest]", or
// "" for fewer than two rounds.
func spread(ratios []float64) string {
	if len(ratios) < 2 {
		return ""
	}
	return fmt.Sprintf(" [%.2f–%.2f]", slices.Min(ratios), slices.Max(ratios))
}

// printTargets writes targets, a line each.
func printTargets(w io.Writer, targets []target) {
	for _, t := range targets {
		mark := "MET   "
		if !t.Met {
			mark = "MISSED"
		}
		fmt.Fprintf(w, "  %s %s: %s\n", mark, t.Target, t.Got)
	}
}

// writeJSON saves v as indented JSON at path.
func writeJSON(path string, v any) error {
	body, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		err = os.WriteFile(path, append(body, '\n'), 0o644)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
