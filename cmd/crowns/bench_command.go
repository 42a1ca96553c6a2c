package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
)

const benchUsageText = `Usage: crowns bench [flags]

Measures the hot routes of Crowns against a bare Fiber server answering
fixed bytes of the same sizes (the ceiling), in one process: it starts
Crowns as serve does (API role, the in-process sandbox upstream), seeds
developer keys and tracked clans with 8 days of 4-hourly history, warms
the caches, drives keep-alive load at each route in turn, prints a table
(requests/s, p50, p99, errors, database queries per request, ratio to the
bare route of matching size, resident memory) and writes it as JSON.

  --duration D        load per route (default 10s)
  --connections N     keep-alive connections, each a closed loop (default 32)
  --keys N            developer keys to seed (default 10000)
  --clans N           tracked clans to seed (default 1000)
  --json PATH         where to write the results (default bench-results.json)
  --database-url URL  PostgreSQL to run on (default CROWNS_DATABASE_URL; unset:
                      SQLite in a temporary directory). It must hold no keys
                      and no tracked clans: the bench fills it.
  --cold              measure the cold paths instead: a 7-day history read of
                      a 50-member clan from the database, and one scheduler
                      tick snapshotting --cold-clans tracked clans against the
                      sandbox with no upstream rate limit
  --cold-clans N      tracked clans of the scheduler tick (default 10000)
  --cpuprofile PATH   write a CPU profile of the load runs (go tool pprof)
  --memprofile PATH   write a heap profile at the end of the run

The load generator, the bare server and Crowns share the machine's cores:
compare ratios within one run.
`

// benchRequest is a parsed crowns bench command line.
type benchRequest struct {
	duration    time.Duration
	connections int
	keys        int
	clans       int
	jsonPath    string
	databaseURL string
	cold        bool
	coldClans   int
	cpuProfile  string
	memProfile  string
}

// parseBenchArgs reads the flags of crowns bench; its errors are one line.
func parseBenchArgs(args []string) (benchRequest, error) {
	req := benchRequest{}
	fs := flag.NewFlagSet("crowns bench", flag.ContinueOnError)
	fs.DurationVar(&req.duration, "duration", 10*time.Second, "load per route")
	fs.IntVar(&req.connections, "connections", 32, "keep-alive connections")
	fs.IntVar(&req.keys, "keys", 10_000, "developer keys to seed")
	fs.IntVar(&req.clans, "clans", 1_000, "tracked clans to seed")
	fs.StringVar(&req.jsonPath, "json", "bench-results.json", "where to write the results")
	fs.StringVar(&req.databaseURL, "database-url", "", "PostgreSQL to run on")
	fs.BoolVar(&req.cold, "cold", false, "measure the cold paths")
	fs.IntVar(&req.coldClans, "cold-clans", 10_000, "tracked clans of the scheduler tick")
	fs.StringVar(&req.cpuProfile, "cpuprofile", "", "CPU profile of the load runs")
	fs.StringVar(&req.memProfile, "memprofile", "", "heap profile at the end")
	if err := parseFlags(fs, args); err != nil {
		return req, err
	}
	var problems []string
	if req.duration <= 0 {
		problems = append(problems, "--duration must be positive")
	}
	if req.connections < 1 || req.connections > 1024 {
		problems = append(problems, "--connections must be from 1 to 1024")
	}
	if req.keys < 1 || req.clans < 1 || req.coldClans < 1 {
		problems = append(problems, "--keys, --clans and --cold-clans must be at least 1")
	}
	if req.jsonPath == "" {
		problems = append(problems, "--json must name a file")
	}
	if req.databaseURL != "" && !strings.HasPrefix(req.databaseURL, "postgres://") && !strings.HasPrefix(req.databaseURL, "postgresql://") {
		problems = append(problems, "--database-url must start with postgres://")
	}
	if len(problems) > 0 {
		return req, errors.New(strings.Join(problems, "; "))
	}
	return req, nil
}

// runBench runs the bench: the hot routes, or the cold paths with --cold.
func runBench(ctx context.Context, env cli, args []string) int {
	req, code, done := parseCommand(env, "crowns bench", benchUsageText, args, parseBenchArgs)
	if done {
		return code
	}
	cfg, err := loadConfig(env.getenv)
	if err != nil {
		fmt.Fprintf(env.stderr, "crowns bench: invalid configuration:\n%s\n", indent(err.Error()))
		return exitUsage
	}
	dataDir, err := os.MkdirTemp("", "crowns-bench-")
	if err != nil {
		fmt.Fprintf(env.stderr, "crowns bench: %v\n", err)
		return exitFailure
	}
	defer os.RemoveAll(dataDir)
	cfg = benchNodeConfig(cfg, dataDir, req)
	if req.cold {
		err = runColdBench(ctx, env, cfg, req)
	} else {
		err = runHotBench(ctx, env, cfg, req)
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "crowns bench: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// benchNodeConfig is the configuration of the Crowns the bench starts:
// the operator's, but serving only the API on a free loopback port, with
// the in-process sandbox, the operator's secret or else a fresh one, and
// (without PostgreSQL) a fresh SQLite file in dataDir.
func benchNodeConfig(cfg config, dataDir string, req benchRequest) config {
	if req.databaseURL != "" {
		cfg.DatabaseURL = req.databaseURL
	}
	cfg.DataDir = dataDir
	cfg.Addr = "127.0.0.1:0"
	cfg.Roles = roles{API: true}
	cfg.UpstreamToken = ""
	if cfg.Secret == "" {
		fresh := make([]byte, keys.MinSecretLength)
		_, _ = rand.Read(fresh)
		cfg.Secret = base64.StdEncoding.EncodeToString(fresh)
	}
	cfg.DiscordToken = ""
	cfg.Tournaments = false
	return cfg
}

// benchDatabaseName names the engine for the report.
func benchDatabaseName(cfg config) string {
	if cfg.DatabaseURL != "" {
		return "postgres (" + maskDatabaseURL(cfg.DatabaseURL) + ")"
	}
	return "sqlite (temporary file)"
}

// benchProgress reports a step on stderr.
func benchProgress(env cli, format string, args ...any) {
	fmt.Fprintf(env.stderr, "crowns bench: "+format+"\n", args...)
}

// newBenchReport starts the report of a run.
func newBenchReport(cfg config, req benchRequest) *benchReport {
	return &benchReport{
		Database:    benchDatabaseName(cfg),
		GoVersion:   runtime.Version(),
		CPUs:        runtime.NumCPU(),
		Note:        benchSharedCoresNote,
		Duration:    req.duration.String(),
		Connections: req.connections,
		Keys:        req.keys,
		Clans:       req.clans,
	}
}

// ensureEmptyDatabase refuses a database that already holds keys or
// tracked clans: the bench would mix its data with real data.
func ensureEmptyDatabase(ctx context.Context, n *node) error {
	if n.db.Dialect() != store.DialectPostgres {
		return nil // a fresh SQLite file in a temporary directory
	}
	lastEvent, err := n.db.LastKeyEventID(ctx)
	if err != nil {
		return err
	}
	tracked, err := n.clans.ListTrackedClans(ctx, true)
	if err != nil {
		return err
	}
	if lastEvent != 0 || len(tracked) != 0 {
		return errors.New("the database already holds keys or tracked clans: run the bench on an empty database or schema (it fills it)")
	}
	return nil
}
