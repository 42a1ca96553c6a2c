package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/crownsdev/crowns/models/store/storetest"
)

// rowNames are the rows every run reports, each for bare and crowns.
var rowNames = []string{
	"clan search/gzip", "clan search/identity",
	"player battles/gzip", "player battles/identity",
	"history (days=7)/gzip", "history (days=7)/identity",
	"401, unknown key/gzip", "401, malformed key/gzip",
}

// crownsBinary builds the crowns binary once for the tests of this
// package.
var crownsBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "crowns-bench-test-")
	if err != nil {
		return "", err
	}
	return buildCrowns(context.Background(), dir)
})

func builtCrowns(t *testing.T) string {
	t.Helper()
	path, err := crownsBinary()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMain runs the bare server's process when the bench starts this
// test binary as one (os.Executable), else the tests.
func TestMain(m *testing.M) {
	if len(os.Args) == 4 && os.Args[1] == bareCommand {
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	if path, err := crownsBinary(); err == nil {
		_ = os.RemoveAll(filepath.Dir(path))
	}
	os.Exit(code)
}

// tinyRounds is how many rounds a row of the tiny configuration's 200 ms
// has: one (rounds are of a second, or the whole duration).
const tinyRounds = 1

func TestBenchRunsEndToEndInATinyConfiguration(t *testing.T) {
	engines := []struct {
		name string
		url  func(*testing.T) string
	}{
		{"sqlite", func(*testing.T) string { return "" }},
		{"postgres", func(t *testing.T) string { return storetest.PostgresURL(t) }},
	}
	for _, engine := range engines {
		t.Run(engine.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "bench.json")
			var stdout, stderr bytes.Buffer
			args := []string{"--duration", "200ms", "--connections", "4", "--keys", "20", "--clans", "5", "--json", out, "--crowns", builtCrowns(t)}
			if url := engine.url(t); url != "" {
				args = append(args, "--database-url", url)
			}
			if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
				t.Fatalf("bench exited with %d:\n%s", code, stderr.String())
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var r report
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatalf("the results are not JSON: %v\n%s", err, raw)
			}
			var names []string
			for i, rw := range r.Rows {
				wantServer := []string{"bare", "crowns"}[i%2]
				if rw.Server != wantServer {
					t.Errorf("row %d (%s) is of server %q, want %q", i, rw.Route, rw.Server, wantServer)
				}
				if rw.Requests == 0 || rw.RequestsPerSecond <= 0 || rw.P99Ms <= 0 || rw.BodyBytes <= 0 {
					t.Errorf("row %+v is incomplete", rw)
				}
				if rw.Errors != 0 {
					t.Errorf("row %s/%s/%s had %d errors", rw.Route, rw.Client, rw.Server, rw.Errors)
				}
				if rw.Server == "crowns" {
					names = append(names, rw.Route+"/"+rw.Client)
					if rw.RatioToBare <= 0 || rw.TargetRatio == 0 {
						t.Errorf("row %s/%s has no comparison: %+v", rw.Route, rw.Client, rw)
					}
					if len(rw.RoundRatios) != tinyRounds || slices.Min(rw.RoundRatios) <= 0 {
						t.Errorf("row %s/%s: round ratios %v, want one of each of its %d rounds", rw.Route, rw.Client, rw.RoundRatios, tinyRounds)
					}
				}
			}
			var serverCPU, clientCPU float64
			for _, rw := range r.Rows {
				serverCPU += rw.ServerCPUMicros
				clientCPU += rw.ClientCPUMicros
			}
			if serverCPU <= 0 || clientCPU <= 0 {
				t.Errorf("CPU per request of the servers %v, of the load generator %v: not measured", serverCPU, clientCPU)
			}
			if !slices.Equal(names, rowNames) {
				t.Fatalf("rows %q, want %q", names, rowNames)
			}
			if !strings.HasPrefix(r.Database, engine.name) || r.PeakResidentBytes <= 0 || len(r.Targets) != 2 {
				t.Fatalf("database %q, resident memory %d, %d targets", r.Database, r.PeakResidentBytes, len(r.Targets))
			}
			if !strings.Contains(stdout.String(), "history (days=7)") || !strings.Contains(stdout.String(), "targets:") {
				t.Fatalf("no table printed:\n%s", stdout.String())
			}
		})
	}
}

// startTestCrowns starts crowns serve, the API role on SQLite in a
// temporary data directory, on ports freePort gives, until the test ends.
func startTestCrowns(t *testing.T, freePort func() (string, error)) *crownsProcess {
	t.Helper()
	dir := t.TempDir()
	secret, err := newSecret()
	if err != nil {
		t.Fatal(err)
	}
	p, err := startCrowns(context.Background(), builtCrowns(t), filepath.Join(dir, "crowns.log"), map[string]string{
		"CROWNS_DATA_DIR": dir, "CROWNS_SECRET": secret, "CROWNS_ROLES": "api",
	}, freePort)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	return p
}

// TestBenchCountsTheStatementsOfRequests: a row whose answers need the
// database (gzip and identity history of clans first read in the run)
// is not reported as free, so the 0 statements/request of a warm row
// means something.
func TestBenchCountsTheStatementsOfRequests(t *testing.T) {
	p := startTestCrowns(t, freeLoopbackAddr)
	before, err := p.statements()
	if err != nil {
		t.Fatal(err)
	}
	// A well-formed key no database knows is looked up once.
	unknown, _, err := refusedKeys()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fetchAll(context.Background(), p.addr, []draw{{uri: "/clan/search?name=royal", key: unknown[0]}}, true); err != nil {
		t.Fatal(err)
	}
	after, err := p.statements()
	if err != nil {
		t.Fatal(err)
	}
	if after.request <= before.request {
		t.Fatalf("request statements %v then %v: the lookup of an unknown key was not counted", before.request, after.request)
	}
	rss, err := residentBytes(p.cmd.Process.Pid)
	if err != nil || rss <= 0 {
		t.Fatalf("VmRSS of crowns: %d, %v", rss, err)
	}
}

func TestColdBenchRunsEndToEndInATinyConfiguration(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cold.json")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"--cold", "--cold-clans", "20", "--json", out}, &stdout, &stderr); code != exitOK {
		t.Fatalf("bench --cold exited with %d:\n%s", code, stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var report coldReport
	if err := json.Unmarshal(raw, &report); err != nil {
		t.Fatalf("the results are not JSON: %v\n%s", err, raw)
	}
	if report.HistoryReadMedianMs <= 0 || report.HistorySnapshots == 0 || report.TickClans != 20 || report.TickStored != 20 || report.TickSeconds <= 0 || len(report.Targets) != 2 {
		t.Fatalf("cold report %+v", report)
	}
}

func TestBenchRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"--duration", "0s"},
		{"--connections", "0"},
		{"--keys", "0"},
		{"--database-url", "mysql://x"},
		{"--nope"},
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != exitUsage {
			t.Errorf("crowns-bench %q exited with %d, want %d", args, code, exitUsage)
		}
	}
}

// TestTheProductionBinaryHasNoBench: `crowns bench` is an unknown command
// of the binary users run.
func TestTheProductionBinaryHasNoBench(t *testing.T) {
	out, err := exec.Command(builtCrowns(t), "bench").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), `unknown command "bench"`) {
		t.Fatalf("crowns bench: %v\n%s", err, out)
	}
}

// TestStartCrownsIsNotFooledByAnotherServerOnItsPort: a port found free
// can be taken by another process before crowns binds it; crowns then
// exits, and the other process may answer /healthz in its place. The
// bench asks a port only once crowns's log says it listens there, starts
// crowns again on other ports, and so measures crowns, not whoever holds
// the port.
func TestStartCrownsIsNotFooledByAnotherServerOnItsPort(t *testing.T) {
	var asked atomic.Int64
	impostor := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer impostor.Close()
	taken := strings.TrimPrefix(impostor.URL, "http://")
	ports := 0
	freePort := func() (string, error) {
		ports++
		if ports == 1 {
			return taken, nil
		}
		return freeLoopbackAddr()
	}
	p := startTestCrowns(t, freePort)
	if p.addr == taken || ports != 4 {
		t.Fatalf("crowns at %s after %d ports chosen; want it started again on two fresh ports, not at the taken %s", p.addr, ports, taken)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the server holding the taken port was asked %d times: the bench asks only where crowns says it listens", n)
	}
	resp, err := http.Get("http://" + p.addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("crowns /readyz: %d", resp.StatusCode)
	}
}

// TestARowFailedByAnExitedCrownsSaysSo: when crowns goes during a run,
// the error a row fails with says that it exited and ends with its log,
// which is deleted with the run's temporary directory.
func TestARowFailedByAnExitedCrownsSaysSo(t *testing.T) {
	p := startTestCrowns(t, freeLoopbackAddr)
	refused := errors.New("connection refused")
	if err := p.explain(refused); err != refused {
		t.Fatalf("crowns running: %v, want the error as it is", err)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.exited
	err := p.explain(refused)
	if !errors.Is(err, refused) || !strings.Contains(err.Error(), "crowns has exited (signal: killed)") || !strings.Contains(err.Error(), `msg="API listening"`) {
		t.Fatalf("crowns gone: %v, want the error, that crowns exited and how, and its log", err)
	}
}
