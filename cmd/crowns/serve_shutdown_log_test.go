package main

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shutdownStages are the lines a stop of `crowns serve` with every role
// but the bot (no Discord token), metrics on and the in-process sandbox
// logs, in the shutdown's order; "stopped" is the last line of all.
var shutdownStages = []string{
	"draining API requests", "API drained", "metrics server stopped", "background work finished",
	"sandbox stopped", "database closed", "stopped",
}

// TestServeLogsEachShutdownStage: a stopped node says, one INFO line per
// stage and in order, that the API drained (every request answered, none
// cut), the metrics server stopped, the background work it names
// finished, the sandbox stopped and the database closed, each with how
// long it took, then "stopped" with the total, as its last line; in JSON
// each is a record whose durations are text.
func TestServeLogsEachShutdownStage(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			n := startServe(t, map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_LOG_FORMAT": format, "CROWNS_SHUTDOWN_TIMEOUT": "25s"})
			n.stop(t) // SIGTERM, and serve's exit
			var records []map[string]any
			if format == "json" {
				records = jsonLines(t, "stderr", n.stderr.String())
			} else {
				records = textLines(t, n.stderr.String())
			}
			var stages []map[string]any
			for _, r := range records {
				if slices.Contains(shutdownStages, r["msg"].(string)) {
					stages = append(stages, r)
				}
			}
			var msgs []string
			for _, r := range stages {
				msgs = append(msgs, r["msg"].(string))
			}
			if !slices.Equal(msgs, shutdownStages) {
				t.Fatalf("shutdown lines %q, want %q:\n%s", msgs, shutdownStages, n.stderr.String())
			}
			if last := records[len(records)-1]; last["msg"] != "stopped" {
				t.Fatalf("last line %v, want stopped:\n%s", last, n.stderr.String())
			}
			var total time.Duration
			for _, r := range stages {
				if r["level"] != "INFO" {
					t.Errorf("%q at level %v, want INFO", r["msg"], r["level"])
				}
				if r["msg"] == "draining API requests" {
					if timeout, err := time.ParseDuration(str(r["timeout"])); err != nil || timeout != 25*time.Second {
						t.Errorf("draining API requests: timeout %v, want CROWNS_SHUTDOWN_TIMEOUT's 25s", r["timeout"])
					}
					continue
				}
				took, err := time.ParseDuration(str(r["took"]))
				if err != nil || took < 0 {
					t.Errorf("%q: took %v, want a duration", r["msg"], r["took"])
				}
				if r["msg"] == "stopped" {
					// Each duration is rounded, by at most half a millisecond.
					if slack := time.Duration(len(stages)) * time.Millisecond / 2; took+slack < total {
						t.Errorf("stopped: took %v, less than its stages' %v", took, total)
					}
					continue
				}
				total += took
			}
			drained, finished := stages[1], stages[3]
			if drained["outcome"] != "every request answered" || str(drained["requestsCut"]) != "0" {
				t.Errorf("API drained: outcome %v, requestsCut %v; want every request answered, 0 cut", drained["outcome"], drained["requestsCut"])
			}
			for _, work := range []string{"key sync and usage flush", "snapshot scheduler", "catalog refresh"} {
				if !strings.Contains(str(finished["work"]), work) {
					t.Errorf("background work finished: work %v does not name %s", finished["work"], work)
				}
			}
		})
	}
}

// textAttr is one key=value of a text log line, the value bare or quoted.
var textAttr = regexp.MustCompile(`(\w+)=("(?:[^"\\]|\\.)*"|\S*)`)

// textLines reads each line of text slog's text handler wrote as its
// attributes; a line without msg fails the test (the configuration's
// table, which is not a log line, is skipped).
func textLines(t *testing.T, text string) []map[string]any {
	t.Helper()
	var records []map[string]any
	for line := range strings.Lines(text) {
		if !strings.HasPrefix(line, "time=") {
			continue
		}
		record := map[string]any{}
		for _, m := range textAttr.FindAllStringSubmatch(line, -1) {
			value := m[2]
			if unquoted, err := strconv.Unquote(value); err == nil {
				value = unquoted
			}
			record[m[1]] = value
		}
		if record["msg"] == nil {
			t.Fatalf("log line without msg: %q", line)
		}
		records = append(records, record)
	}
	return records
}

// str is a record's value as text: JSON numbers as Go prints them.
func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return ""
	}
	return strings.TrimSuffix(strconv.FormatFloat(v.(float64), 'f', -1, 64), ".0")
}

// TestDrainOutcome: the API's shutdown line says why the drain ended, and
// only an error other than its context's is left to log as a failure.
func TestDrainOutcome(t *testing.T) {
	failure := errors.New("close listener: broken")
	for _, tt := range []struct {
		err     error
		outcome string
		left    error
	}{
		{nil, "every request answered", nil},
		{context.DeadlineExceeded, "stopped waiting at CROWNS_SHUTDOWN_TIMEOUT", nil},
		{fmt.Errorf("wait: %w", context.Canceled), "stopped waiting at the second stop signal", nil},
		{failure, "failed", failure},
	} {
		if outcome, left := drainOutcome(tt.err); outcome != tt.outcome || left != tt.left {
			t.Errorf("drainOutcome(%v) = %q, %v; want %q, %v", tt.err, outcome, left, tt.outcome, tt.left)
		}
	}
}
