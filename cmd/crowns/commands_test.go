package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// runCaptured runs crowns with args and returns its exit code and both
// streams.
func runCaptured(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCapturedWith(t, nil, args...)
}

// runCapturedWith is runCaptured with the environment env besides a data
// directory of the test's own.
func runCapturedWith(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	all := map[string]string{"CROWNS_DATA_DIR": t.TempDir()}
	maps.Copy(all, env)
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, testCLI(&out, &errOut, all))
	return code, out.String(), errOut.String()
}

// failureRecord reads stderr as the one JSON record of a failed command
// (see commandFailed) and returns its line as text, "<command>:
// <error>"; it fails the test when stderr is anything else.
func failureRecord(t *testing.T, stderr string) string {
	t.Helper()
	var record map[string]any
	if strings.Count(stderr, "\n") != 1 || json.Unmarshal([]byte(stderr), &record) != nil {
		t.Fatalf("stderr is not one JSON record:\n%s", stderr)
	}
	command, _ := record["command"].(string)
	reason, _ := record["error"].(string)
	if record["level"] != "ERROR" || record["msg"] != command+" failed" || command == "" || reason == "" {
		t.Fatalf("failure record %v", record)
	}
	return command + ": " + reason
}

// TestHelpIsPrintedForEveryWayOfAsking: crowns --help, -h, help, and for
// every command CMD --help, CMD -h, CMD help and help CMD (and, for the
// actions of keys and clans, CMD ACTION --help, -h and help) print usage
// to stdout, nothing to stderr, and exit 0.
func TestHelpIsPrintedForEveryWayOfAsking(t *testing.T) {
	type ask struct {
		args []string
		want string
	}
	asks := []ask{
		{[]string{"--help"}, usageText()},
		{[]string{"-h"}, usageText()},
		{[]string{"-help"}, usageText()},
		{[]string{"help"}, usageText()},
		{[]string{"help", "--help"}, helpUsageText},
		{[]string{"keys", "issue", "--help"}, keysUsageText},
		{[]string{"keys", "list", "-h"}, keysUsageText},
		{[]string{"clans", "list", "--help"}, clansUsageText},
		{[]string{"clans", "track", "--help"}, clansUsageText},
		{[]string{"clans", "untrack", "GG9922JY", "-h"}, clansUsageText},
		{[]string{"clans", "weekly", "help"}, clansUsageText},
		{[]string{"clans", "list", "help"}, clansUsageText},
		{[]string{"keys", "issue", "help"}, keysUsageText},
		{[]string{"keys", "list", "help"}, keysUsageText},
		{[]string{"sandbox", "--addr", "127.0.0.1:1", "-h"}, sandboxUsageText},
	}
	for _, c := range commands() {
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {c.name, "help"}, {"help", c.name}} {
			asks = append(asks, ask{args, c.usage})
		}
	}
	for _, a := range asks {
		t.Run(strings.Join(a.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCaptured(t, a.args...)
			if code != exitOK || stdout != a.want || stderr != "" {
				t.Fatalf("exit %d, stderr %q, stdout:\n%s\nwant exit 0, no stderr and:\n%s", code, stderr, stdout, a.want)
			}
		})
	}
}

// TestUsageTextsShareOneShape: every usage starts with its Usage line and a
// blank line, states the command's exit status, bad arguments' 2 included,
// and ends with a newline; crowns --help lists every command.
func TestUsageTextsShareOneShape(t *testing.T) {
	top := usageText()
	for _, c := range commands() {
		if _, status, ok := strings.Cut(c.usage, "\nExit status: 0 "); !ok || !strings.Contains(status, ", 2 ") {
			t.Errorf("%s: usage does not state its exit status, 0 to 2, on a line of its own:\n%s", c.name, c.usage)
		}
		first, rest, _ := strings.Cut(c.usage, "\n")
		if !strings.HasPrefix(first, "Usage: crowns ") || !strings.Contains(first, c.name) || !strings.HasPrefix(rest, "\n") || !strings.HasSuffix(c.usage, "\n") {
			t.Errorf("%s: usage does not start with its Usage line and a blank line:\n%s", c.name, c.usage)
		}
		if !strings.Contains(top, "\n  "+c.name+" ") {
			t.Errorf("crowns --help does not list %s:\n%s", c.name, top)
		}
	}
}

// TestServeUsageNamesWhereEachServiceListens: crowns serve --help names
// the addresses an operator opens or keeps closed, the API's and the
// metrics' (which is never the API's).
func TestServeUsageNamesWhereEachServiceListens(t *testing.T) {
	for _, name := range []string{"CROWNS_ADDR", "CROWNS_METRICS_ADDR", defaultMetricsAddr, metricsOff} {
		if !strings.Contains(serveUsageText, name) {
			t.Errorf("crowns serve --help does not name %s:\n%s", name, serveUsageText)
		}
	}
}

// TestVersionIsPrinted: crowns version and --version print one line
// naming the release.
func TestVersionIsPrinted(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		code, stdout, stderr := runCaptured(t, args...)
		if code != exitOK || !strings.HasPrefix(stdout, "crowns ") || strings.Count(stdout, "\n") != 1 || stderr != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 0 and one line", args, code, stdout, stderr)
		}
	}
}

// TestBadCommandLinesGiveOneLine: unknown commands, flags and arguments
// print one line to stderr that says where usage is, nothing to stdout,
// and exit 2.
func TestBadCommandLinesGiveOneLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"nope"}, `crowns: unknown command "nope" (run 'crowns --help' for usage)`},
		{[]string{"--nope"}, `crowns: unknown flag --nope (run 'crowns --help' for usage)`},
		{[]string{"-x", "serve"}, `crowns: unknown flag -x (run 'crowns --help' for usage)`},
		{[]string{"help", "nope"}, `crowns help: unknown command "nope" (run 'crowns --help' for usage)`},
		{[]string{"help", "keys", "issue"}, `crowns help: takes one command name, got 2 arguments (run 'crowns --help' for usage)`},
		{[]string{"serve", "--port", "80"}, `crowns serve: unknown flag --port (run 'crowns serve --help' for usage)`},
		{[]string{"serve", "now"}, `crowns serve: unexpected argument "now" (run 'crowns serve --help' for usage)`},
		{[]string{"migrate", "up"}, `crowns migrate: unexpected argument "up" (run 'crowns migrate --help' for usage)`},
		{[]string{"version", "--short"}, `crowns version: unknown flag --short (run 'crowns version --help' for usage)`},
		{[]string{"healthcheck", "--url", "x"}, `crowns healthcheck: unknown flag --url (run 'crowns healthcheck --help' for usage)`},
		{[]string{"sandbox", "--nope"}, `crowns sandbox: unknown flag --nope (run 'crowns sandbox --help' for usage)`},
		{[]string{"keys", "issue", "--force"}, `crowns keys issue: unknown flag --force (run 'crowns keys --help' for usage)`},
		{[]string{"clans", "track", "--force", "GG9922JY"}, `crowns clans track: unknown flag --force (run 'crowns clans --help' for usage)`},
		{[]string{"clans", "weekly", "GG9922JY", "on", "--now"}, `crowns clans weekly: unknown flag --now (run 'crowns clans --help' for usage)`},
		{[]string{"keys", "rotate"}, `crowns keys: unknown action "rotate" (run 'crowns keys --help' for usage)`},
		{[]string{"keys", "issue", "--discord-user"}, `crowns keys issue: flag --discord-user needs a value (run 'crowns keys --help' for usage)`},
		{[]string{"keys", "--discord-user", "1", "issue"}, `crowns keys: the action comes first, before any flag; got --discord-user (run 'crowns keys --help' for usage)`},
		{[]string{"keys", "stats", "--discord-user", "1", "--json=maybe"}, `crowns keys stats: invalid boolean value "maybe" for --json: parse error (run 'crowns keys --help' for usage)`},
		{[]string{"keys", "stats", "--discord-user", "1", "--json=x for -y"}, `crowns keys stats: invalid boolean value "x for -y" for --json: parse error (run 'crowns keys --help' for usage)`},
		{[]string{"keys", "stats", "--discord-user", "1", "--json=x for flag -y"}, `crowns keys stats: invalid boolean value "x for flag -y" for --json: parse error (run 'crowns keys --help' for usage)`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := runCaptured(t, tt.args...)
			if code != exitUsage || stdout != "" || stderr != tt.want+"\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2, no stdout and %q", code, stdout, stderr, tt.want)
			}
			// With JSON logs, the line is one JSON record saying the same.
			code, stdout, stderr = runCapturedWith(t, map[string]string{"CROWNS_LOG_FORMAT": "json"}, tt.args...)
			if code != exitUsage || stdout != "" {
				t.Fatalf("JSON logs: exit %d, stdout %q; want exit 2 and no stdout", code, stdout)
			}
			if got := failureRecord(t, stderr); got != tt.want {
				t.Fatalf("JSON logs: the record says %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFailedCommandsWriteJSONWithJSONLogs: an operator command that fails
// at its work (the database unreachable, the server not answering, a
// developer unknown) writes one JSON record under CROWNS_LOG_FORMAT=json,
// the failure whole in it even when it spans lines, as a log pipeline
// reading its stderr expects; its exit status does not change.
func TestFailedCommandsWriteJSONWithJSONLogs(t *testing.T) {
	unreachable := map[string]string{
		"CROWNS_DATABASE_URL": "postgres://postgres@" + freeAddr(t) + "/crowns?connect_timeout=2",
		"CROWNS_SECRET":       testSecret,
	}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string // the start of the record's line as text
	}{
		{"migrate, database unreachable", unreachable, []string{"migrate"}, exitFailure, "crowns migrate: open database: database unavailable"},
		{"keys, database unreachable", unreachable, []string{"keys", "list"}, exitFailure, "crowns keys list: open database: database unavailable"},
		{"healthcheck, no server", map[string]string{"CROWNS_ADDR": freeAddr(t)}, []string{"healthcheck"}, exitFailure, "crowns healthcheck: "},
		{"keys, unknown developer", nil, []string{"keys", "disable", "--discord-user", "123456789012345678"}, exitFailure, "crowns keys disable: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"CROWNS_LOG_FORMAT": "json"}
			maps.Copy(env, tt.env)
			code, _, stderr := runCapturedWith(t, env, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			// The last line is the failure; log records may come before it.
			lines := strings.SplitAfter(strings.TrimSuffix(stderr, "\n"), "\n")
			for _, line := range lines[:len(lines)-1] {
				if !json.Valid([]byte(line)) {
					t.Fatalf("a line of stderr is not JSON: %q", line)
				}
			}
			if got := failureRecord(t, lines[len(lines)-1]+"\n"); !strings.HasPrefix(got, tt.want) {
				t.Fatalf("the record says %q, want it to start with %q", got, tt.want)
			}
		})
	}
}
