package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// clansCLI runs crowns clans with an environment and a manual clock.
type clansCLI struct {
	env   map[string]string
	clock *models.ManualClock
}

func newClansCLI(t *testing.T, databaseURL string) clansCLI {
	t.Helper()
	env := useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_LOG_LEVEL": "error"}, databaseURL)
	return clansCLI{env: env, clock: models.NewManualClock(time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC))}
}

func (c clansCLI) run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"clans"}, args...), cli{
		getenv: func(name string) string { return c.env[name] },
		stdout: &out,
		stderr: &errOut,
		clock:  c.clock,
	})
	return code, out.String(), errOut.String()
}

func TestClansCommandRejectsBadArguments(t *testing.T) {
	c := newClansCLI(t, "")
	tests := []struct {
		args []string
		want string
	}{
		{nil, "crowns clans: an action is required: track, untrack, weekly, list or import (run 'crowns clans --help' for usage)\n"},
		{[]string{"import", "2CCCP"}, "crowns clans import: takes a clan tag and a history file, then --weekly if its snapshots are weekly (run 'crowns clans --help' for usage)\n"},
		{[]string{"import", "2CCCP", "h.json", "--daily"}, "crowns clans import: unknown flag --daily (run 'crowns clans --help' for usage)\n"},
		{[]string{"follow", "2CCCP"}, "crowns clans: unknown action \"follow\" (run 'crowns clans --help' for usage)\n"},
		{[]string{"track"}, "crowns clans track: takes one clan tag (run 'crowns clans --help' for usage)\n"},
		{[]string{"untrack", "2CCCP", "8LLL"}, "crowns clans untrack: takes one clan tag (run 'crowns clans --help' for usage)\n"},
		{[]string{"track", "ABC"}, "crowns clans track: illegal characters in tag 'ABC' (allowed: 0289CGJLPQRUVY) (run 'crowns clans --help' for usage)\n"},
		{[]string{"weekly", "2CCCP"}, "crowns clans weekly: takes a clan tag and on or off (run 'crowns clans --help' for usage)\n"},
		{[]string{"weekly", "2CCCP", "maybe"}, "crowns clans weekly: wants on or off after the tag, got \"maybe\" (run 'crowns clans --help' for usage)\n"},
		{[]string{"list", "extra"}, "crowns clans list: unexpected argument \"extra\" (run 'crowns clans --help' for usage)\n"},
		{[]string{"list", "--everything"}, "crowns clans list: unknown flag --everything (run 'crowns clans --help' for usage)\n"},
	}
	for _, tt := range tests {
		code, stdout, stderr := c.run(tt.args...)
		if code != exitUsage || stdout != "" || stderr != tt.want {
			t.Errorf("clans %v = %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, stdout, stderr, tt.want)
		}
	}
	if code, stdout, _ := c.run("help"); code != exitOK || !strings.Contains(stdout, "track TAG") {
		t.Errorf("clans help = %d %q", code, stdout)
	}
}

func TestClansCommandLifecycle(t *testing.T) {
	world := sandbox.NewWorld(sandbox.Config{})
	trackable := world.TrackableClanTags()[0]
	var untrackable string
	for _, tag := range world.ClanTags() {
		if !slices.Contains(world.TrackableClanTags(), tag) {
			untrackable = tag
			break
		}
	}
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			c := newClansCLI(t, engine.databaseURL(t))
			steps := []struct {
				args   []string
				code   int
				stdout string
				stderr string
			}{
				{[]string{"list"}, exitOK, "no tracked clans\n", ""},
				{[]string{"track", "#" + strings.ToLower(trackable)}, exitOK,
					"track: clan " + trackable + " (", "its description has \"crowns.example\"; snapshot of slot 2026-03-10-08-00 stored\n"},
				{[]string{"track", untrackable}, exitOK, "track: clan " + untrackable + " (", "its description lacks \"crowns.example\""},
				{[]string{"track", trackable}, exitOK, "track: clan " + trackable + " is already tracked (since 2026-03-10T09:30:00Z, by operator)\n", ""},
				{[]string{"track", "9999"}, exitFailure, "", "crowns clans track: clan 9999 does not exist upstream\n"},
				{[]string{"weekly", trackable, "on"}, exitOK, "weekly: collection for " + trackable + " is now on\n", ""},
				{[]string{"weekly", trackable, "on"}, exitOK, "weekly: collection for " + trackable + " was already on\n", ""},
				{[]string{"weekly", "9999", "on"}, exitFailure, "", "crowns clans weekly: clan 9999 is unknown: it was never tracked (track it first: crowns clans track 9999)\n"},
				{[]string{"untrack", untrackable}, exitOK, "untrack: clan " + untrackable + " is no longer tracked; its history is kept\n", ""},
				{[]string{"untrack", untrackable}, exitOK, "untrack: clan " + untrackable + " was not tracked; nothing changed\n", ""},
				{[]string{"weekly", untrackable, "on"}, exitFailure, "", "crowns clans weekly: clan " + untrackable + " is not tracked (track it first: crowns clans track " + untrackable + ")\n"},
				{[]string{"untrack", "9999"}, exitFailure, "", "crowns clans untrack: clan 9999 is unknown: it was never tracked\n"},
				// Tracked again within the slot it was first tracked in: that
				// slot's snapshot is the one stored then, and is said to be.
				{[]string{"track", untrackable}, exitOK, "track: clan " + untrackable + " (", "; snapshot of slot 2026-03-10-08-00 already stored, kept\n"},
				{[]string{"untrack", untrackable}, exitOK, "untrack: clan " + untrackable + " is no longer tracked; its history is kept\n", ""},
			}
			for _, step := range steps {
				code, stdout, stderr := c.run(step.args...)
				ok := code == step.code
				if step.code == exitOK {
					ok = ok && strings.HasPrefix(stdout, step.stdout) && strings.Contains(stdout, step.stderr)
				} else {
					ok = ok && stdout == "" && strings.HasSuffix(stderr, step.stderr)
				}
				if !ok {
					t.Fatalf("clans %v = %d\nstdout %q\nstderr %q\nwant exit %d with %q / %q", step.args, code, stdout, stderr, step.code, step.stdout, step.stderr)
				}
			}

			code, stdout, _ := c.run("list")
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if code != exitOK || len(lines) != 2 {
				t.Fatalf("list = %d\n%s\nwant a header and one clan", code, stdout)
			}
			want := []string{trackable, "tracked", "2026-03-10T09:30:00Z", "operator", "on", "1", "2026-03-10-08-00", "yes"}
			if got := strings.Fields(lines[1]); !slices.Equal(got, want) {
				t.Fatalf("list row = %v, want %v", got, want)
			}
			code, stdout, _ = c.run("list", "--all")
			if code != exitOK || !strings.Contains(stdout, untrackable+"  untracked") || strings.Count(stdout, "\n") != 3 {
				t.Fatalf("list --all = %d\n%s\nwant both clans, %s untracked", code, stdout, untrackable)
			}
		})
	}
}

// TestClansCommandTakesATagAsPeopleWriteIt: a tag typed with "#", or with
// "%23" as copied from a URL, in any case and with O for 0, is the clan's.
func TestClansCommandTakesATagAsPeopleWriteIt(t *testing.T) {
	for _, written := range []string{"2CCCP", "#2cccp", "%232CCCP", " %232cccp "} {
		req, err := parseClansArgs([]string{"track", written})
		if err != nil || req.tag != "2CCCP" {
			t.Errorf("clans track %q: tag %q, %v; want 2CCCP", written, req.tag, err)
		}
	}
	if req, err := parseClansArgs([]string{"weekly", "#pyolq", "on"}); err != nil || req.tag != "PY0LQ" || !req.weekly {
		t.Errorf("clans weekly #pyolq on: %+v, %v", req, err)
	}
}

// TestClansImportStoresALegacyHistory: the JSON of a history answer (here
// or from the legacy service) is stored for a tracked clan, slot by slot;
// stored slots stay as they are, and a file that is not a history of the
// schedule asked for changes nothing.
func TestClansImportStoresALegacyHistory(t *testing.T) {
	world := sandbox.NewWorld(sandbox.Config{})
	tag := world.TrackableClanTags()[0]
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			c := newClansCLI(t, engine.databaseURL(t))
			dir := t.TempDir()
			file := func(name, body string) string {
				path := filepath.Join(dir, name)
				if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
					t.Fatal(err)
				}
				return path
			}
			history := file("history.json", `{
				"2026-03-09-20-00": {"donations": 40, "memberCount": 1, "score": 41000,
					"members": [{"clanRank": 1, "crowns": 3, "donations": 40, "name": "Ann", "tag": "#2pp", "trophies": 4000}]},
				"2026-03-09-16-00": {"donations": 12, "memberCount": 1, "score": 40900,
					"members": [{"clanRank": 1, "crowns": 1, "donations": 12, "name": "Ann", "tag": "2PP", "trophies": 3990}]}
			}`)
			weekly := file("weekly.json", `{"2026-03-09-23-00": {"donations": 52, "memberCount": 1, "score": 41000,
				"members": [{"clanRank": 1, "crowns": 4, "donations": 52, "name": "Ann", "tag": "2PP", "trophies": 4000}]}}`)
			steps := []struct {
				args   []string
				code   int
				output string
			}{
				{[]string{"import", "9999", history}, exitFailure, "crowns clans import: clan 9999 is unknown: it was never tracked (track it first: crowns clans track 9999)\n"},
				{[]string{"track", tag}, exitOK, "track: clan " + tag},
				{[]string{"import", tag, history}, exitOK, "import: 2 4-hourly snapshots of " + tag + " stored, from 2026-03-09-16-00 to 2026-03-09-20-00; 0 slots already stored kept\n"},
				{[]string{"import", tag, history}, exitOK, "import: 0 4-hourly snapshots of " + tag + " stored, from 2026-03-09-16-00 to 2026-03-09-20-00; 2 slots already stored kept\n"},
				{[]string{"import", tag, weekly}, exitFailure, "\"2026-03-09-23-00\" is not a 4-hourly slot (YYYY-MM-DD-HH-mm, UTC)\n"},
				{[]string{"import", tag, weekly, "--weekly"}, exitOK, "import: 1 weekly snapshot of " + tag + " stored, at 2026-03-09-23-00; 0 slots already stored kept\n" +
					"import: weekly collection is off for " + tag + ", so /clan/" + tag + "/history/weekly answers 417 until crowns clans weekly " + tag + " on\n"},
				{[]string{"import", tag, file("list.json", `[]`)}, exitFailure, "not a history answer: want the JSON object, keyed by slot, that GET /clan/TAG/history answers\n"},
				{[]string{"import", tag, file("empty.json", `{}`)}, exitFailure, "no snapshots\n"},
				{[]string{"import", tag, file("badtag.json", `{"2026-03-09-12-00": {"memberCount": 1, "members": [{"tag": "ABC"}]}}`)}, exitFailure, "slot 2026-03-09-12-00, member 1: illegal characters in tag 'ABC'"},
				{[]string{"import", tag, file("nomembers.json", `{"2026-03-09-12-00": {}}`)}, exitFailure, "slot 2026-03-09-12-00 has no members\n"},
				{[]string{"import", tag, file("null.json", `{"2026-03-09-12-00": null}`)}, exitFailure, "slot 2026-03-09-12-00 has no members\n"},
				{[]string{"import", tag, file("count.json", `{"2026-03-09-12-00": {"memberCount": 7, "members": [{"tag": "2PP"}]}}`)}, exitFailure, "slot 2026-03-09-12-00 says memberCount 7 but lists 1 member\n"},
				{[]string{"import", tag, file("short.json", `{"2026-03-09-8-00": {"memberCount": 1, "members": [{"tag": "2PP"}]}}`)}, exitFailure, "\"2026-03-09-8-00\" is not a 4-hourly slot"},
				{[]string{"import", tag, file("future.json", `{"2026-03-10-12-00": {"memberCount": 1, "members": [{"tag": "2PP"}]}}`)}, exitFailure, "slot 2026-03-10-12-00 is in the future (the current one is 2026-03-10-08-00)\n"},
				{[]string{"import", tag, file("old.json", `{"2024-01-01-00-00": {"memberCount": 1, "members": [{"tag": "2PP"}]}}`)}, exitFailure, "slot 2024-01-01-00-00 is older than the history kept (CROWNS_HISTORY_RETENTION_DAYS: since 2025-02-03)\n"},
				{[]string{"import", tag, filepath.Join(dir, "missing.json")}, exitFailure, "missing.json: no such file or directory\n"},
			}
			for _, step := range steps {
				code, stdout, stderr := c.run(step.args...)
				got := stdout
				if step.code != exitOK {
					got = stderr
				}
				if code != step.code || !strings.Contains(got, step.output) {
					t.Fatalf("clans %v = %d\nstdout %q\nstderr %q\nwant exit %d with %q", step.args, code, stdout, stderr, step.code, step.output)
				}
			}
			_, stdout, _ := c.run("list")
			if fields := strings.Fields(strings.Split(strings.TrimSpace(stdout), "\n")[1]); len(fields) < 7 || fields[5] != "4" {
				t.Fatalf("list after the imports:\n%s\nwant 4 snapshots (the track's, two 4-hourly, one weekly)", stdout)
			}
		})
	}
}
