package scheduler_test

import (
	"bytes"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
	"github.com/crownsdev/crowns/upstream"
)

// TestAnOutageOfTheGameAPIIsLoggedOnceATick: while every fetch fails, a
// tick writes one WARN line for all its failed fetches and one for all
// the slots it records missed, each with an example; the line of each
// job, and those the game API client writes of each failed attempt and
// call, are at DEBUG.
func TestAnOutageOfTheGameAPIIsLoggedOnceATick(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 3)
		var logs bytes.Buffer
		cfg := testConfig(e.clock, "replica-a")
		cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		// The game API client of crowns serve: it logs into the same
		// output, and tries each call more than once.
		client, err := upstream.New(upstream.Config{BaseURL: e.world.baseURL, Token: "test-token", Backoff: time.Millisecond,
			Logger: cfg.Logger, Clock: e.clock})
		if err != nil {
			t.Fatal(err)
		}
		sched, err := scheduler.New(e.clans, ClanSourceFunc(client.Clan), cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.scheduler = sched
		e.trackAll(t)
		for _, tag := range e.world.trackable {
			e.world.failTag(tag, true)
		}
		clans := len(e.world.trackable)
		slot := at("2026-03-10T12:00:00Z")
		e.clock.Set(slot.Add(time.Minute))
		if report := e.tick(t); report.Retried != clans {
			t.Fatalf("tick = %+v, want %d retries", report, clans)
		}
		warnings := linesWith(logs.String(), "level=WARN")
		if len(warnings) != 1 || !strings.Contains(warnings[0], "snapshot fetches failed") || !strings.Contains(warnings[0], "failed="+strconv.Itoa(clans)) ||
			!strings.Contains(warnings[0], "exampleClan=") || !strings.Contains(warnings[0], "exampleError=") {
			t.Fatalf("warnings of the tick %q, want one for its %d failed fetches", warnings, clans)
		}
		if n := len(linesWith(logs.String(), "level=DEBUG msg=\"snapshot fetch failed; retrying\"")); n != clans {
			t.Errorf("%d lines of failed fetches at DEBUG, want one a job (%d)", n, clans)
		}

		logs.Reset()
		e.clock.Set(slot.Add(4 * time.Hour))
		if report := e.tick(t); report.Missed != clans {
			t.Fatalf("tick at the window's end = %+v, want %d missed", report, clans)
		}
		missed := linesWith(logs.String(), "snapshot slots missed")
		if len(missed) != 1 || !strings.Contains(missed[0], "level=WARN") || !strings.Contains(missed[0], "jobs="+strconv.Itoa(clans)) ||
			!strings.Contains(missed[0], "example.clan=") || !strings.Contains(missed[0], "example.lastError=") {
			t.Fatalf("lines of the missed slots %q, want one WARN for all %d", missed, clans)
		}
	})
}

// linesWith are the lines of text that contain part.
func linesWith(text, part string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, part) {
			out = append(out, line)
		}
	}
	return out
}
