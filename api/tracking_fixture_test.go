package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/scheduler"
)

const (
	testKey      = "crw_testkeytestkeytestkeytestkey123456"
	testKeyID    = 42
	trackAddress = "crowns.example"
	supportInfo  = "see the docs"
)

// acceptingKeys verifies every key as key testKeyID.
type acceptingKeys struct{}

func (acceptingKeys) Verify(context.Context, string) (keys.Identity, error) {
	return keys.Identity{KeyID: testKeyID, DeveloperID: 1, DiscordUserID: "1"}, nil
}

// noGame is a game upstream that the tracking routes never ask.
type noGame struct{}

func (noGame) SearchClans(context.Context, models.ClanSearchQuery) (models.ClanSearchPage, error) {
	return models.ClanSearchPage{}, nil
}

func (noGame) PlayerBattles(context.Context, string) ([]models.Battle, error) { return nil, nil }

// testWorld is the game upstream of these tests: clans whose numbers move
// with the clock; it remembers what it served per clan and time.
type testWorld struct {
	clock *models.ManualClock
	mu    sync.Mutex
	down  bool
	// described maps a known tag to its description.
	described map[string]string
	served    map[string]models.ClanDetails
}

func (w *testWorld) Clan(ctx context.Context, tag string) (models.ClanDetails, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.down {
		return models.ClanDetails{}, models.Unavailable("upstream", 30*time.Second, fmt.Errorf("maintenance"))
	}
	description, ok := w.described[tag]
	if !ok {
		return models.ClanDetails{}, models.ErrNotFound
	}
	hours := int(w.clock.Now().Unix() / 3600)
	clan := models.ClanDetails{Tag: tag, Name: "Clan " + tag, Description: description, MemberCount: 3}
	for i, name := range []string{"Min", "Ñandú", "Sandstorm™"} {
		clan.Members = append(clan.Members, models.ClanMember{
			Tag: fmt.Sprintf("%sP%d", tag, i), Name: name, ClanRank: i + 1,
			Trophies: 4600 - 100*i + hours%7, Donations: (hours + i) % 90, ClanChestPoints: i * hours % 13,
		})
	}
	w.served[tag+"@"+w.clock.Now().Format(time.RFC3339)] = clan
	return clan, nil
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
	clans     *models.ClanStore
	clock     *models.ManualClock
	world     *testWorld
	scheduler *scheduler.Scheduler
}

// Tags of the test world.
const (
	tagWithAddress    = "2CCCP"
	tagWithoutAddress = "8LLLQ"
	tagUnknown        = "9999"
)

func newTrackingEnv(t *testing.T, store *models.Store) *trackingEnv {
	t.Helper()
	clock := models.NewManualClock(time.Date(2026, 3, 10, 9, 30, 0, 0, time.UTC))
	world := &testWorld{clock: clock, served: map[string]models.ClanDetails{}, described: map[string]string{
		tagWithAddress:    "Stats at CROWNS.example/clans",
		tagWithoutAddress: "no address here",
	}}
	clans := models.NewClanStore(store)
	tracker, err := scheduler.NewTracker(clans, world, scheduler.TrackerConfig{TrackAddress: trackAddress, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := scheduler.New(clans, world, scheduler.Config{TrackAddress: trackAddress, Clock: clock, RatePerSecond: 1000})
	if err != nil {
		t.Fatal(err)
	}
	server, err := api.New(api.Config{SupportInfo: supportInfo, RatePerSecond: 1000, RateBurst: 1000, Clock: clock},
		api.Dependencies{Keys: acceptingKeys{}, Game: noGame{}, Health: store, Tracker: tracker, History: clans})
	if err != nil {
		t.Fatal(err)
	}
	return &trackingEnv{app: server, clans: clans, clock: clock, world: world, scheduler: sched}
}

// get sends an authenticated GET through the Fiber app and returns the
// status and body.
func (e *trackingEnv) get(t *testing.T, path string) (int, []byte, http.Header) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("auth", testKey)
	resp, err := e.app.App().Test(req, -1)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body, resp.Header
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
