package endtoend_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// tournamentEnv is the real API with tournaments on, and the real
// tournament refresher beside it, over one database and the sandbox
// world's game API.
type tournamentEnv struct {
	app       *api.Server
	clock     *models.ManualClock
	world     *sandbox.World
	refresher *scheduler.TournamentRefresher
}

func newTournamentEnv(t *testing.T, engine store.Dialect) *tournamentEnv {
	t.Helper()
	clock := models.NewManualClock(time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC))
	db := storetest.Open(t, engine)
	world := sandbox.NewWorld(sandbox.Config{Clock: clock, Clans: 400})
	game := httptest.NewServer(world.Handler())
	t.Cleanup(game.Close)
	client, err := upstream.New(upstream.Config{BaseURL: game.URL + "/v1", Token: "test", Timeout: 2 * time.Second, Backoff: time.Millisecond, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	tracker, err := scheduler.NewTracker(db, client, scheduler.TrackerConfig{TrackAddress: sandbox.DefaultTrackAddress, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	refresher, err := scheduler.NewTournamentRefresher(db, client, scheduler.TournamentRefresherConfig{
		RefreshPerMinute: 6000, Owner: "test", Clock: clock, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	app, err := api.New(api.Config{SupportInfo: supportInfo, RateLimitPerSecond: 1000, RateLimitBurst: 1000, Clock: clock, Tournaments: true},
		api.Dependencies{Keys: acceptingKeys{}, Game: client, Health: db, Tracker: tracker, History: db, TournamentSource: client, TournamentStore: db})
	if err != nil {
		t.Fatal(err)
	}
	return &tournamentEnv{app: app, clock: clock, world: world, refresher: refresher}
}

// tick runs one round of the refresher.
func (e *tournamentEnv) tick(t *testing.T) scheduler.TournamentTickReport {
	t.Helper()
	report, err := e.refresher.Tick(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return report
}

// tags are the tags of a tournament list's elements, sorted.
func (e *tournamentEnv) tags(t *testing.T, path string) []string {
	t.Helper()
	status, body := e.get(t, path)
	var elements []struct {
		Tag string `json:"tag"`
	}
	if err := json.Unmarshal(body, &elements); status != http.StatusOK || err != nil {
		t.Fatalf("%s: %d %s (%v)", path, status, body, err)
	}
	tags := make([]string, len(elements))
	for i, element := range elements {
		tags[i] = element.Tag
	}
	slices.Sort(tags)
	return tags
}

func (e *tournamentEnv) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("auth", testKey)
	resp, err := e.app.App().Test(req, -1)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, readBody(t, resp)
}

// The known list holds the tournaments clients looked up, by any route
// and any number of tags at once, and no other: the refresher's
// discoveries and refreshes feed the other lists only, and a refresh of a
// looked-up tournament keeps it known.
func TestKnownHoldsOnlyLookedUpTournaments(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			e := newTournamentEnv(t, engine)
			if report := e.tick(t); report.Discovered == 0 || report.Refreshed == 0 {
				t.Fatalf("the refresher found nothing in the sandbox: %+v", report)
			}
			if known := e.tags(t, "/tournaments/known"); len(known) != 0 {
				t.Fatalf("known holds tournaments only the refresher found: %v", known)
			}
			discovered := 0
			for _, list := range []string{"1k", "full", "open", "inprep", "joinable"} {
				discovered += len(e.tags(t, "/tournaments/"+list))
			}
			if discovered == 0 {
				t.Fatal("every list but known is empty after discovery")
			}

			tags := e.world.TournamentTags()
			a, b, c, d := tags[0], tags[1], tags[2], tags[3]
			for _, path := range []string{"/tournament/" + a, "/tournaments/" + b, "/tournament/" + c + "," + d + "," + unknownTournament} {
				if status, body := e.get(t, path); status != http.StatusOK {
					t.Fatalf("%s: %d %s", path, status, body)
				}
			}
			want := slices.Sorted(slices.Values([]string{a, b, c, d}))
			if known := e.tags(t, "/tournaments/known"); !slices.Equal(known, want) {
				t.Fatalf("known after four lookups: %v, want %v", known, want)
			}

			// A discovery round and refreshes later, they are still known,
			// and only they.
			e.clock.Advance(scheduler.DefaultTournamentDiscoveryInterval + time.Minute)
			if report := e.tick(t); !report.Searched || report.Refreshed == 0 {
				t.Fatalf("no search and refresh: %+v", report)
			}
			if known := e.tags(t, "/tournaments/known"); !slices.Equal(known, want) {
				t.Fatalf("known after a refresh: %v, want %v", known, want)
			}
		})
	}
}

// unknownTournament is a tournament tag the sandbox does not have.
const unknownTournament = "2PPCC"
