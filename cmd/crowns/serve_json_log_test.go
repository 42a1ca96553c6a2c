package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// jsonLines decodes every line of text as a JSON object; a line that is
// not one fails the test.
func jsonLines(t *testing.T, stream, text string) []map[string]any {
	t.Helper()
	var records []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		var record map[string]any
		if err := json.Unmarshal([]byte(line), &record); err != nil {
			t.Fatalf("%s line %d is not JSON (%v): %q", stream, i+1, err, line)
		}
		records = append(records, record)
	}
	return records
}

// recordOf is the first record whose msg is msg.
func recordOf(t *testing.T, records []map[string]any, msg string) map[string]any {
	t.Helper()
	for _, r := range records {
		if r["msg"] == msg {
			return r
		}
	}
	t.Fatalf("no record %q among %d", msg, len(records))
	return nil
}

// TestServeWithJSONLogsWritesOnlyJSON: crowns with no command (serve) and
// CROWNS_LOG_FORMAT=json writes nothing but JSON records, on stderr and on
// stdout, from the first line to the last: the configuration is one
// record with every setting and durations as text, the first start's key
// is one record on stdout only, and durations of other records (the
// scheduler's tick, an access line's latency) read as durations too.
func TestServeWithJSONLogsWritesOnlyJSON(t *testing.T) {
	addr := freeAddr(t)
	stdout, stderr := newWatchedBuffer(welcomeMessage), newWatchedBuffer(`"msg":"scheduler started"`)
	env := map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_ADDR": addr, "CROWNS_METRICS_ADDR": "127.0.0.1:0", "CROWNS_LOG_FORMAT": "json"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exit := make(chan int, 1)
	go func() { exit <- run(ctx, nil, testCLI(stdout, stderr, env)) }()
	for _, seen := range []chan struct{}{stdout.seen, stderr.seen} {
		select {
		case <-seen:
		case code := <-exit:
			t.Fatalf("crowns exited with %d:\n%s", code, stderr.String())
		case <-time.After(60 * time.Second):
			t.Fatalf("crowns did not start:\n%s\n%s", stdout.String(), stderr.String())
		}
	}
	if code := getJSON(t, "http://"+addr+"/healthz", "", nil); code != http.StatusOK {
		t.Fatalf("healthz: %d", code)
	}
	cancel()
	if code := <-exit; code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}

	logged := jsonLines(t, "stderr", stderr.String())
	if logged[0]["msg"] != configMessage {
		t.Fatalf("the first record is %v, want the configuration", logged[0])
	}
	cfg, _ := logged[0]["config"].(map[string]any)
	for name, want := range map[string]any{
		"CROWNS_ADDR":              addr,
		"CROWNS_UPSTREAM_TIMEOUT":  "10s",
		"CROWNS_SHUTDOWN_TIMEOUT":  "20s",
		"CROWNS_CACHE_TTL":         "3m0s",
		"CROWNS_HISTORY_CACHE_TTL": "1m0s",
		"CROWNS_RATE_LIMIT_BURST":  20.0,
		"CROWNS_MEMORY_LIMIT_MB":   104.0,
		"CROWNS_LOG_FORMAT":        "json",
		"CROWNS_SECRET":            "generated file in the data dir",
		"CROWNS_UPSTREAM_TOKEN":    "unset: the in-process sandbox serves game data",
	} {
		if cfg[name] != want {
			t.Errorf("config %s = %#v, want %#v", name, cfg[name], want)
		}
	}
	if len(cfg) != len(knownVariables()) {
		t.Errorf("the configuration record has %d settings, want the %d variables", len(cfg), len(knownVariables()))
	}
	if tick := recordOf(t, logged, "scheduler started")["tickInterval"]; tick != "30s" {
		t.Errorf("scheduler started: tickInterval %#v, want \"30s\"", tick)
	}
	access := recordOf(t, logged, "request")
	if latency, ok := access["latency"].(string); !ok {
		t.Errorf("access line latency %#v, want a duration's text", access["latency"])
	} else if _, err := time.ParseDuration(latency); err != nil {
		t.Errorf("access line latency %q: %v", latency, err)
	}

	printed := jsonLines(t, "stdout", stdout.String())
	if len(printed) != 1 {
		t.Fatalf("stdout has %d records, want the welcome alone", len(printed))
	}
	key, _ := printed[0]["key"].(string)
	try, _ := printed[0]["try"].([]any)
	if printed[0]["msg"] != welcomeMessage || !printedKey.MatchString(key) || len(try) != 2 || !strings.Contains(try[0].(string), key) {
		t.Fatalf("welcome record %v", printed[0])
	}
	if strings.Contains(stderr.String(), key[4:]) {
		t.Fatal("the key reached the log")
	}
}

// TestJSONLogsReportABadConfigurationAsJSON: with CROWNS_LOG_FORMAT=json
// even the refusal to start is one JSON record listing every problem.
func TestJSONLogsReportABadConfigurationAsJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"serve"}, testCLI(&stdout, &stderr, map[string]string{
		"CROWNS_LOG_FORMAT": "json", "CROWNS_CACHE_TTL": "soon", "CROWNS_ROLES": "web",
	}))
	if code != exitUsage || stdout.Len() != 0 {
		t.Fatalf("exit %d, stdout %q", code, stdout.String())
	}
	records := jsonLines(t, "stderr", stderr.String())
	problems, _ := records[0]["problems"].([]any)
	if len(records) != 1 || records[0]["level"] != "ERROR" || len(problems) != 2 {
		t.Fatalf("records %v, want one ERROR record with 2 problems", records)
	}
}
