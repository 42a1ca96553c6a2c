// Command crowns-bench is the load benchmark of Crowns. It measures what
// users get: it seeds a database through the model and key packages,
// starts the real `crowns serve` as a child process on it, drives
// keep-alive load at the hot routes with gzip and identity clients,
// spread over the keys and clans as real traffic is (Zipf, s = 1), and
// compares each route with a bare Fiber server answering the very bytes
// Crowns answered. With --cold it measures the cold paths instead (a
// history read from the database, one scheduler tick), in process.
//
// Nothing of it is part of the crowns binary or the production packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

const usageText = `Usage: crowns-bench [flags]

Measures the hot routes of Crowns as a client sees them: it seeds a
database with developer keys and tracked clans (8 days of 4-hourly
history), starts the real crowns serve on it (API role, the in-process
sandbox upstream), and drives keep-alive load at clan search, player
battles and clan history, each with a gzip client and an identity client,
plus requests with unknown and malformed keys. Requests are spread over
the keys and clans with a Zipf distribution (s = 1). Each row is compared
with a bare Fiber server answering the very bytes Crowns answered for the
same requests. It prints a table (requests/s, p50, p99, errors, database
statements per request, ratio to bare, targets) and writes it as JSON.

  --duration D        load per row (default 10s)
  --connections N     keep-alive connections, each a closed loop (default 32)
  --keys N            developer keys to seed (default 10000)
  --clans N           tracked clans to seed, and players asked (default 1000)
  --json PATH         where to write the results (default bench-results.json)
  --database-url URL  PostgreSQL to run on (default: SQLite in a temporary
                      directory). It must hold no keys and no tracked
                      clans: the bench fills it.
  --crowns PATH       the crowns binary to run (default: go build
                      ./cmd/crowns into a temporary directory)
  --cold              measure the cold paths instead: a 7-day history read of
                      a 50-member clan from the database, and one scheduler
                      tick snapshotting --cold-clans tracked clans against the
                      sandbox with no upstream rate limit
  --cold-clans N      tracked clans of the scheduler tick (default 10000)
  --wrk DIR           measure nothing: seed and start crowns as for the hot
                      rows, then write each row's requests and a wrk script
                      into DIR, start each row's bare server, print the wrk
                      command lines for both servers, and hold everything up
                      until interrupted, so that wrk (an independent load
                      tool) can check the bench's figures

The load generator, the bare server and Crowns share the machine's cores:
compare ratios within one run.
`

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// request is a parsed command line.
type request struct {
	duration    time.Duration
	connections int
	keys        int
	clans       int
	jsonPath    string
	databaseURL string
	crowns      string
	cold        bool
	coldClans   int
	// wrkDir, when set, is where the hot rows are written for wrk
	// instead of being measured.
	wrkDir string
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run runs the bench and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 3 && args[0] == bareCommand {
		if err := serveBare(ctx, args[1], args[2], stdout); err != nil {
			fmt.Fprintf(stderr, "crowns-bench bare server: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	req, err := parseArgs(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usageText)
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "crowns-bench: %v\n", err)
		return exitUsage
	}
	progress := func(format string, args ...any) { fmt.Fprintf(stderr, "crowns-bench: "+format+"\n", args...) }
	if req.cold {
		err = runCold(ctx, req, stdout, progress)
	} else {
		err = runHot(ctx, req, stdout, progress)
	}
	if err != nil {
		fmt.Fprintf(stderr, "crowns-bench: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// parseArgs reads the flags; its errors are one line.
func parseArgs(args []string) (request, error) {
	req := request{}
	fs := flag.NewFlagSet("crowns-bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.DurationVar(&req.duration, "duration", 10*time.Second, "load per row")
	fs.IntVar(&req.connections, "connections", 32, "keep-alive connections")
	fs.IntVar(&req.keys, "keys", 10_000, "developer keys to seed")
	fs.IntVar(&req.clans, "clans", 1_000, "tracked clans to seed")
	fs.StringVar(&req.jsonPath, "json", "bench-results.json", "where to write the results")
	fs.StringVar(&req.databaseURL, "database-url", "", "PostgreSQL to run on")
	fs.StringVar(&req.crowns, "crowns", "", "the crowns binary")
	fs.BoolVar(&req.cold, "cold", false, "measure the cold paths")
	fs.IntVar(&req.coldClans, "cold-clans", 10_000, "tracked clans of the scheduler tick")
	fs.StringVar(&req.wrkDir, "wrk", "", "where to write the rows for wrk")
	if err := fs.Parse(args); err != nil {
		return req, err
	}
	var problems []string
	if fs.NArg() > 0 {
		problems = append(problems, fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if req.duration <= 0 {
		problems = append(problems, "--duration must be positive")
	}
	if req.connections < 1 || req.connections > 1024 {
		problems = append(problems, "--connections must be from 1 to 1024")
	}
	if req.keys < 1 || req.clans < 1 || req.coldClans < 1 {
		problems = append(problems, "--keys, --clans and --cold-clans must be at least 1")
	}
	if req.cold && req.wrkDir != "" {
		problems = append(problems, "--wrk exports the hot rows: it cannot be used with --cold")
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
