package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// benchRow is one route of a bench run, as printed and written to JSON.
type benchRow struct {
	Route  string `json:"route"`
	Server string `json:"server"`
	// Example is one request of the route's rotation.
	Example string `json:"example"`
	// BodyBytes is the mean size of an answer's body on the wire.
	BodyBytes         int64   `json:"bodyBytes"`
	Requests          int64   `json:"requests"`
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	P50Ms             float64 `json:"p50Ms"`
	P99Ms             float64 `json:"p99Ms"`
	Errors            int64   `json:"errors"`
	// DatabaseQueries counts the statements requests sent during the
	// route's run; BackgroundQueries those of background work (the
	// key-event sync, the last-use flush) meanwhile.
	DatabaseQueries   int64   `json:"databaseQueries"`
	BackgroundQueries int64   `json:"backgroundQueries"`
	QueriesPerRequest float64 `json:"queriesPerRequest"`
	Baseline          string  `json:"baseline,omitempty"`
	RatioToBaseline   float64 `json:"ratioToBaseline,omitempty"`
	// Informational rows have no target of their own (ratio, p99).
	Informational       bool `json:"informational,omitempty"`
	baselineRow         *benchRow
	wantRatio           float64
	countsForQueryCheck bool
}

// benchTarget is one goal of the issue and whether this run met it.
type benchTarget struct {
	Target string `json:"target"`
	Got    string `json:"got"`
	Met    bool   `json:"met"`
}

// benchReport is the whole of a bench run.
type benchReport struct {
	Database    string `json:"database"`
	GoVersion   string `json:"goVersion"`
	CPUs        int    `json:"cpus"`
	Note        string `json:"note"`
	Duration    string `json:"durationPerRoute"`
	Connections int    `json:"connections"`
	Keys        int    `json:"keys"`
	Clans       int    `json:"clans"`
	// SeedSeconds is how long seeding the keys and the clans took.
	SeedKeysSeconds  float64     `json:"seedKeysSeconds"`
	SeedClansSeconds float64     `json:"seedClansSeconds"`
	Rows             []*benchRow `json:"routes"`
	ResidentBytes    int64       `json:"residentBytes"`
	PeakBytes        int64       `json:"peakResidentBytes"`
	// ResidentFileBytes is the part of ResidentBytes mapped from files
	// (the binary).
	ResidentFileBytes int64 `json:"residentFileBytes"`
	// GoHeapBytes is the Go heap in use at the end, GoRetainedBytes what
	// the Go runtime holds from the system (heap not yet returned,
	// stacks, its own structures).
	GoHeapBytes     int64         `json:"goHeapBytes"`
	GoRetainedBytes int64         `json:"goRetainedBytes"`
	Targets         []benchTarget `json:"targets"`
}

// benchSharedCoresNote says why only ratios within one run mean anything.
const benchSharedCoresNote = "the load generator, the bare server and Crowns run in one process on the same cores " +
	"(PostgreSQL too, when used): compare ratios within one run, not absolute numbers across machines or runs"

// Targets of the issue.
const (
	targetLargeRatio   = 0.9
	targetSmallRatio   = 0.8
	targetP99          = 20 * time.Millisecond
	targetResidentSize = 150 << 20
)

// row records a route's outcome.
func (r *benchReport) row(route, server, example string, outcome loadOutcome, queries, background int64) *benchRow {
	row := &benchRow{
		Route:             route,
		Server:            server,
		Example:           example,
		Requests:          outcome.requests,
		RequestsPerSecond: float64(outcome.requests) / outcome.elapsed.Seconds(),
		P50Ms:             milliseconds(outcome.latency.quantile(0.50)),
		P99Ms:             milliseconds(outcome.latency.quantile(0.99)),
		Errors:            outcome.errors,
		DatabaseQueries:   queries,
		BackgroundQueries: background,
	}
	if ok := outcome.requests - outcome.errors; ok > 0 {
		row.BodyBytes = outcome.bodyBytes / ok
	}
	if outcome.requests > 0 {
		row.QueriesPerRequest = float64(queries) / float64(outcome.requests)
	}
	r.Rows = append(r.Rows, row)
	return row
}

// compare sets the bare route a row is measured against, and the ratio
// the issue asks of it (0: informational).
func (row *benchRow) compare(baseline *benchRow, want float64) {
	row.baselineRow, row.wantRatio = baseline, want
	row.Baseline = baseline.Route
	if baseline.RequestsPerSecond > 0 {
		row.RatioToBaseline = row.RequestsPerSecond / baseline.RequestsPerSecond
	}
}

func milliseconds(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// judge fills in the targets.
func (r *benchReport) judge() {
	r.Targets = nil
	var errors int64
	worstQueries, worstP99 := 0.0, 0.0
	for _, row := range r.Rows {
		errors += row.Errors
		if !row.Informational {
			worstP99 = max(worstP99, row.P99Ms)
		}
		if row.countsForQueryCheck {
			worstQueries = max(worstQueries, row.QueriesPerRequest)
		}
		if row.wantRatio > 0 {
			r.Targets = append(r.Targets, benchTarget{
				Target: fmt.Sprintf("%s ≥ %.1f× %s", row.Route, row.wantRatio, row.Baseline),
				Got:    fmt.Sprintf("%.2f×", row.RatioToBaseline),
				Met:    row.RatioToBaseline >= row.wantRatio,
			})
		}
	}
	r.Targets = append(r.Targets,
		benchTarget{Target: "no errors", Got: strconv.FormatInt(errors, 10), Met: errors == 0},
		benchTarget{Target: "no database query per request (key checks, cached answers)", Got: fmt.Sprintf("at most %.4f", worstQueries), Met: worstQueries == 0},
		benchTarget{Target: fmt.Sprintf("p99 ≤ %d ms", targetP99.Milliseconds()), Got: fmt.Sprintf("at most %.2f ms", worstP99), Met: worstP99 <= milliseconds(targetP99)},
		benchTarget{Target: fmt.Sprintf("resident memory ≤ %d MB at the end", targetResidentSize>>20), Got: megabytes(r.ResidentBytes), Met: r.ResidentBytes > 0 && r.ResidentBytes <= targetResidentSize},
	)
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// print writes the table and the targets.
func (r *benchReport) print(w io.Writer) {
	fmt.Fprintf(w, "\ncrowns bench — %s, %d CPUs, %d connections, %s per route, %d keys, %d tracked clans\n",
		r.Database, r.CPUs, r.Connections, r.Duration, r.Keys, r.Clans)
	fmt.Fprintf(w, "(%s)\n\n", r.Note)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "route\tbody B\treq/s\tp50 ms\tp99 ms\terrors\tdb q/req\tvs bare\t")
	for _, row := range r.Rows {
		ratio, queries := "", ""
		if row.Baseline != "" {
			ratio = fmt.Sprintf("%.2f× %s", row.RatioToBaseline, row.Baseline)
		}
		if row.Informational {
			ratio = "(no target)"
		}
		if row.Server == "crowns" {
			queries = fmt.Sprintf("%.4f", row.QueriesPerRequest)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.2f\t%.2f\t%d\t%s\t%s\t\n",
			row.Route, row.BodyBytes, row.RequestsPerSecond, row.P50Ms, row.P99Ms, row.Errors, queries, ratio)
	}
	_ = tw.Flush()
	var background int64
	for _, row := range r.Rows {
		background += row.BackgroundQueries
	}
	fmt.Fprintf(w, "\nbackground statements during the runs (key-event sync, last-use flush): %d\n", background)
	fmt.Fprintf(w, "seeding: %d keys in %.1f s, %d clans with history in %.1f s\n", r.Keys, r.SeedKeysSeconds, r.Clans, r.SeedClansSeconds)
	fmt.Fprintf(w, "resident memory at the end: %s (peak %s); of it mapped from the binary %s; Go heap in use %s, held by the Go runtime %s\n\ntargets:\n",
		megabytes(r.ResidentBytes), megabytes(r.PeakBytes), megabytes(r.ResidentFileBytes), megabytes(r.GoHeapBytes), megabytes(r.GoRetainedBytes))
	for _, t := range r.Targets {
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

// goMemory reads the Go heap in use and what the Go runtime holds from
// the system.
func goMemory() (heap, retained int64) {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse), int64(m.Sys - m.HeapReleased)
}

// residentMemory reads VmRSS, VmHWM (the peak) and RssFile (the part
// mapped from files: the binary's code and data) of this process from
// /proc/self/status, in bytes; zeros where that file does not exist.
func residentMemory() (current, peak, files int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0, 0
	}
	defer f.Close()
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		name, value, ok := strings.Cut(scanner.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmRSS":
			current = kb << 10
		case "VmHWM":
			peak = kb << 10
		case "RssFile":
			files = kb << 10
		}
	}
	return current, peak, files
}
