package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// benchRoutes are the rows every bench run reports.
var benchRoutes = []string{
	"bare small", "clan search (cached)", "401, unknown key", "401, malformed key",
	"bare, battles size", "player battles (cached)",
	"bare, history size", "history (days=7)", "history, identity client",
}

func TestBenchRunsEndToEndInATinyConfiguration(t *testing.T) {
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "bench.json")
			stdout, stderr := newWatchedBuffer(""), newWatchedBuffer("")
			env := useDatabase(map[string]string{}, engine.databaseURL(t))
			code := run(context.Background(), []string{"bench", "--duration", "200ms", "--connections", "4", "--keys", "20", "--clans", "5", "--json", out},
				testCLI(stdout, stderr, env))
			if code != exitOK {
				t.Fatalf("bench exited with %d:\n%s", code, stderr.String())
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var report struct {
				Database string `json:"database"`
				Routes   []struct {
					Route             string   `json:"route"`
					Server            string   `json:"server"`
					Requests          int64    `json:"requests"`
					RequestsPerSecond float64  `json:"requestsPerSecond"`
					P50Ms             *float64 `json:"p50Ms"`
					P99Ms             *float64 `json:"p99Ms"`
					Errors            *int64   `json:"errors"`
					QueriesPerRequest *float64 `json:"queriesPerRequest"`
					BodyBytes         int64    `json:"bodyBytes"`
					Baseline          string   `json:"baseline"`
				} `json:"routes"`
				ResidentBytes int64 `json:"residentBytes"`
				Targets       []struct {
					Target string `json:"target"`
					Met    *bool  `json:"met"`
				} `json:"targets"`
			}
			if err := json.Unmarshal(raw, &report); err != nil {
				t.Fatalf("the results are not JSON: %v\n%s", err, raw)
			}
			var names []string
			for _, row := range report.Routes {
				names = append(names, row.Route)
				if row.Requests == 0 || row.RequestsPerSecond <= 0 || row.P50Ms == nil || row.P99Ms == nil || row.Errors == nil || row.QueriesPerRequest == nil {
					t.Errorf("row %q is incomplete: %+v", row.Route, row)
				}
				if (row.Server == "crowns") != !strings.HasPrefix(row.Route, "bare") {
					t.Errorf("row %q is of server %q", row.Route, row.Server)
				}
			}
			if !slices.Equal(names, benchRoutes) {
				t.Fatalf("routes %q, want %q", names, benchRoutes)
			}
			if !strings.HasPrefix(report.Database, engine.name) || report.ResidentBytes <= 0 || len(report.Targets) == 0 {
				t.Fatalf("database %q, resident memory %d, %d targets", report.Database, report.ResidentBytes, len(report.Targets))
			}
			for _, target := range report.Targets {
				if target.Met == nil {
					t.Errorf("target %q has no verdict", target.Target)
				}
			}
			if !strings.Contains(stdout.String(), "history (days=7)") || !strings.Contains(stdout.String(), "targets:") {
				t.Fatalf("no table printed:\n%s", stdout.String())
			}
		})
	}
}

func TestColdBenchRunsEndToEndInATinyConfiguration(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cold.json")
	stdout, stderr := newWatchedBuffer(""), newWatchedBuffer("")
	code := run(context.Background(), []string{"bench", "--cold", "--cold-clans", "20", "--json", out}, testCLI(stdout, stderr, map[string]string{}))
	if code != exitOK {
		t.Fatalf("bench --cold exited with %d:\n%s", code, stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		HistoryReadMedianMs float64 `json:"historyReadMedianMs"`
		HistorySnapshots    int     `json:"historySnapshots"`
		TickClans           int     `json:"tickClans"`
		TickStored          int     `json:"tickStored"`
		TickSeconds         float64 `json:"tickSeconds"`
		Targets             []struct {
			Met *bool `json:"met"`
		} `json:"targets"`
	}
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
		{"extra"},
	} {
		stdout, stderr := newWatchedBuffer(""), newWatchedBuffer("")
		if code := run(context.Background(), append([]string{"bench"}, args...), testCLI(stdout, stderr, map[string]string{})); code != exitUsage {
			t.Errorf("bench %q exited with %d, want %d", args, code, exitUsage)
		}
	}
}
