package endtoend_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/scheduler"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

const (
	testKey      = "crw_testkeytestkeytestkeytestkey123456"
	testKeyID    = 42
	trackAddress = "crowns.example"
	supportInfo  = "see the docs"
)

// acceptingKeys verifies every key as key testKeyID.
type acceptingKeys struct{}

func (acceptingKeys) VerifyCached(string, time.Time) (keys.Identity, error) {
	return keys.Identity{}, keys.ErrNotCached
}

func (acceptingKeys) VerifyAt(context.Context, string, time.Time) (keys.Identity, error) {
	return keys.Identity{KeyID: testKeyID, DeveloperID: 1, DiscordUserID: "1"}, nil
}

// noGame is a game upstream that the tracking routes never ask.
type noGame struct{}

func (noGame) SearchClans(context.Context, legacy.ClanSearchQuery) (legacy.ClanSearchPage, error) {
	return legacy.ClanSearchPage{}, nil
}

func (noGame) PlayerBattles(context.Context, string) ([]legacy.Battle, error) { return nil, nil }

// testWorld is the game upstream of these tests: the sandbox world, whose
// numbers move with the clock, served over HTTP to the real upstream
// client. The HTTP server in front of the sandbox answers 503 while down
// is set; the client's answers are remembered per clan and clock time.
type testWorld struct {
	client *upstream.Client
	clock  *models.ManualClock

	mu     sync.Mutex
	down   bool
	served map[string]models.ClanDetails
}

func newTestWorld(t *testing.T, clock *models.ManualClock) (*testWorld, *sandbox.World) {
	t.Helper()
	sandboxWorld := sandbox.NewWorld(sandbox.Config{Seed: 11, Clock: clock, TrackAddress: trackAddress, Clans: 300})
	w := &testWorld{clock: clock, served: map[string]models.ClanDetails{}}
	handler := sandboxWorld.Handler()
	server := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		down := w.down
		w.mu.Unlock()
		if down {
			rw.Header().Set("Retry-After", "30")
			rw.WriteHeader(http.StatusServiceUnavailable)
			_, _ = rw.Write([]byte(`{"reason":"inMaintenance","message":"maintenance"}`))
			return
		}
		handler.ServeHTTP(rw, r)
	}))
	t.Cleanup(server.Close)
	client, err := upstream.New(upstream.Config{BaseURL: server.URL + "/v1", Token: "test-token", MaxAttempts: 1, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	w.client = client
	return w, sandboxWorld
}

// Clan fetches through the real client and remembers the answer.
func (w *testWorld) Clan(ctx context.Context, tag string) (models.ClanDetails, error) {
	clan, err := w.client.Clan(ctx, tag)
	if err == nil {
		w.mu.Lock()
		w.served[tag+"@"+w.clock.Now().Format(time.RFC3339)] = clan
		w.mu.Unlock()
	}
	return clan, err
}

func (w *testWorld) setDown(down bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.down = down
}

func (w *testWorld) servedAt(t *testing.T, tag string, at time.Time) models.ClanDetails {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	clan, ok := w.served[tag+"@"+at.Format(time.RFC3339)]
	if !ok {
		t.Fatalf("nothing served for %s at %s", tag, at)
	}
	return clan
}

// trackingEnv is the real API over a real database, the real tracker and
// scheduler, and the test world.
type trackingEnv struct {
	app       *api.Server
	db        *store.Store
	clans     *store.Store
	clock     *models.ManualClock
	world     *testWorld
	scheduler *scheduler.Scheduler
	// withAddress is a clan whose description carries the address,
	// withoutAddress one whose description does not.
	withAddress, withoutAddress string
}

// tagUnknown is a clan the sandbox does not have.
const tagUnknown = "9999"

func newTrackingEnv(t *testing.T, db *store.Store, configure ...func(*api.Config)) *trackingEnv {
	t.Helper()
	return newTrackingEnvReading(t, db, nil, configure...)
}

// newTrackingEnvReading is newTrackingEnv whose API reads history through
// reading(the clan store) when reading is set.
func newTrackingEnvReading(t *testing.T, db *store.Store, reading func(api.ClanHistoryReader) api.ClanHistoryReader, configure ...func(*api.Config)) *trackingEnv {
	t.Helper()
	clock := models.NewManualClock(time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC))
	world, sandboxWorld := newTestWorld(t, clock)
	e := &trackingEnv{db: db, clans: db, clock: clock, world: world}
	trackable := sandboxWorld.TrackableClanTags()
	e.withAddress = trackable[0]
	for _, tag := range sandboxWorld.ClanTags() {
		if !slices.Contains(trackable, tag) {
			e.withoutAddress = tag
			break
		}
	}
	tracker, err := scheduler.NewTracker(e.clans, world, scheduler.TrackerConfig{TrackAddress: trackAddress, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if e.scheduler, err = scheduler.New(e.clans, world, scheduler.Config{TrackAddress: trackAddress, Clock: clock, SnapshotRatePerSecond: 1000}); err != nil {
		t.Fatal(err)
	}
	cfg := api.Config{SupportInfo: supportInfo, RateLimitPerSecond: 1000, RateLimitBurst: 1000, Clock: clock}
	for _, fn := range configure {
		fn(&cfg)
	}
	var history api.ClanHistoryReader = e.clans
	if reading != nil {
		history = reading(history)
	}
	e.app, err = api.New(cfg, api.Dependencies{Keys: acceptingKeys{}, Game: noGame{}, Health: db, Tracker: tracker, History: history})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// get sends an authenticated GET through the Fiber app, with headers in
// name, value pairs, and returns the status, body and headers.
func (e *trackingEnv) get(t *testing.T, path string, headers ...string) (int, []byte, http.Header) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("auth", testKey)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := e.app.App().Test(req, -1)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, readBody(t, resp), resp.Header
}

// readBody reads and closes the body of an answer.
func readBody(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// wantError checks a contract error answer.
func wantError(t *testing.T, status int, body []byte, wantStatus int, wantText string) {
	t.Helper()
	var got struct {
		Error      bool   `json:"error"`
		StatusCode int    `json:"statusCode"`
		StatusText string `json:"statusText"`
		Info       string `json:"info"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("error body %s: %v", body, err)
	}
	if status != wantStatus || !got.Error || got.StatusCode != wantStatus || got.StatusText != wantText || got.Info != supportInfo {
		t.Fatalf("answer %d %s, want %d with statusText %q", status, body, wantStatus, wantText)
	}
}
