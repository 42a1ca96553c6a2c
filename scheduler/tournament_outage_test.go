package scheduler_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
	"github.com/crownsdev/crowns/upstream"
)

// syncLog is a log output several goroutines write into.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *syncLog) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Reset()
}

// TestAnOutageOfTheGameAPIIsLoggedOnceARefreshPass: while the game API
// answers every call 503, a pass of the tournament refresher writes one
// WARN line for all its failed searches and lookups, with their count and
// an example; the line of each search and lookup, and those the game API
// client writes of each failed attempt and call, are at DEBUG.
func TestAnOutageOfTheGameAPIIsLoggedOnceARefreshPass(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(tournamentStart)
		// Tournaments known before the outage, from the sandbox: each is
		// due for a lookup.
		known := newTournamentUpstream(t, clock)
		var due []models.TournamentDetails
		for _, tag := range known.world.TournamentTags() {
			if details := known.tournament(t, tag); details.Status != models.TournamentEnded {
				due = append(due, details)
			}
			if len(due) == 5 {
				break
			}
		}
		if len(due) == 0 {
			t.Fatal("no tournament of the sandbox has not ended")
		}
		if err := db.SaveDiscoveredTournaments(context.Background(), due, clock.Now()); err != nil {
			t.Fatal(err)
		}

		var calls atomic.Int32
		down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			calls.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"reason":"inMaintenance","message":"Service is temporarily unavailable because of maintenance."}`))
		}))
		t.Cleanup(down.Close)
		logs := &syncLog{}
		logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		// The game API client of crowns serve: it logs into the same
		// output, and tries each call more than once.
		client, err := upstream.New(upstream.Config{BaseURL: down.URL + "/v1", Token: "test-token", Backoff: time.Millisecond,
			Logger: logger, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		terms := []string{"cup", "clash", "battle", "league"}
		cfg := tournamentRefresherConfig(clock, "a", terms)
		cfg.Logger = logger
		refresher, err := scheduler.NewTournamentRefresher(db, client, cfg)
		if err != nil {
			t.Fatal(err)
		}

		report := tickTournaments(t, refresher)
		if !report.Searched || report.Failed != len(due) || calls.Load() <= int32(len(terms)+len(due)) {
			t.Fatalf("pass = %+v after %d calls, want %d searches and %d lookups failed, each tried more than once",
				report, calls.Load(), len(terms), len(due))
		}
		out := logs.String()
		warnings := linesWith(out, "level=WARN")
		if len(warnings) != 1 || !strings.Contains(warnings[0], "failed="+strconv.Itoa(len(terms)+len(due))) ||
			!strings.Contains(warnings[0], "searches="+strconv.Itoa(len(terms))) || !strings.Contains(warnings[0], "lookups="+strconv.Itoa(len(due))) ||
			!strings.Contains(warnings[0], "example.error=") {
			t.Fatalf("warnings of the pass:\n%s\nwant one for its %d failed searches and %d failed lookups, with an example",
				strings.Join(warnings, "\n"), len(terms), len(due))
		}
		if n := len(linesWith(out, "level=ERROR")); n != 0 {
			t.Errorf("%d ERROR lines for an outage:\n%s", n, out)
		}
		if n := len(linesWith(out, `level=DEBUG msg="game API attempt failed, retrying"`)); n == 0 {
			t.Errorf("no DEBUG line of the client's failed attempts:\n%s", out)
		}
		if n := len(linesWith(out, `level=DEBUG msg="tournament lookup failed`)); n != len(due) {
			t.Errorf("%d lines of failed lookups at DEBUG, want one a tournament (%d)", n, len(due))
		}
		if n := len(linesWith(out, `level=DEBUG msg="tournament search failed`)); n != len(terms) {
			t.Errorf("%d lines of failed searches at DEBUG, want one a term (%d)", n, len(terms))
		}

		// The next pass, within the leases and the search period, calls
		// nothing and writes no warning.
		logs.Reset()
		clock.Advance(30 * time.Second)
		if report := tickTournaments(t, refresher); report.Searched || report.Failed != 0 {
			t.Fatalf("the next pass = %+v, want nothing tried", report)
		}
		if warnings := linesWith(logs.String(), "level=WARN"); len(warnings) != 0 {
			t.Fatalf("a pass without failures warned: %q", warnings)
		}
	})
}
