package scheduler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// trackAddress is the address the sandbox's trackable clans carry.
const trackAddress = "crowns.example"

// worldClans is the size of the sandbox world: enough for 40 trackable
// clans.
const worldClans = 1500

// world is the game upstream of the tests: the sandbox world served over
// HTTP to the real upstream client. In front of the sandbox sits a
// recorder that counts the requests for each (clan, 4-hourly slot at
// request time), can make the upstream answer 503 for a clan, and can
// rewrite a clan's description; behind the client a recorder keeps what
// the scheduler was served.
type world struct {
	source ClanSourceFunc
	clock  *models.ManualClock
	// baseURL is where the world is served, for a test that needs a
	// client of its own.
	baseURL string
	// trackable are clans whose description carries trackAddress;
	// untrackable one whose description does not.
	trackable   []string
	untrackable string

	mu           sync.Mutex
	requests     map[fetchKey]int
	served       map[fetchKey]models.ClanDetails
	failing      map[string]bool
	descriptions map[string]string
	// hold, when set, is called with each clan request before it is
	// answered (a test that holds requests back or times them).
	hold func(tag string)
}

type fetchKey struct {
	tag  string
	slot time.Time
}

// ClanSourceFunc adapts a function to scheduler.ClanSource.
type ClanSourceFunc func(ctx context.Context, tag string) (models.ClanDetails, error)

// Clan calls f.
func (f ClanSourceFunc) Clan(ctx context.Context, tag string) (models.ClanDetails, error) {
	return f(ctx, tag)
}

func newWorld(t *testing.T, clock *models.ManualClock, clans int) *world {
	t.Helper()
	sandboxWorld := sandbox.NewWorld(sandbox.Config{Seed: 7, Clock: clock, TrackAddress: trackAddress, Clans: worldClans})
	w := &world{clock: clock, requests: map[fetchKey]int{}, served: map[fetchKey]models.ClanDetails{},
		failing: map[string]bool{}, descriptions: map[string]string{}}
	trackable := sandboxWorld.TrackableClanTags()
	if len(trackable) < clans {
		t.Fatalf("the sandbox has %d trackable clans, the test wants %d", len(trackable), clans)
	}
	w.trackable = trackable[:clans]
	for _, tag := range sandboxWorld.ClanTags() {
		if !slices.Contains(trackable, tag) {
			w.untrackable = tag
			break
		}
	}
	server := httptest.NewServer(w.intercept(sandboxWorld.Handler()))
	t.Cleanup(server.Close)
	w.baseURL = server.URL + "/v1"
	client, err := upstream.New(upstream.Config{BaseURL: w.baseURL, Token: "test-token", MaxAttempts: 1, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	w.source = func(ctx context.Context, tag string) (models.ClanDetails, error) {
		clan, err := client.Clan(ctx, tag)
		if err == nil {
			w.mu.Lock()
			w.served[fetchKey{tag: tag, slot: models.SnapshotFourHourly.SlotAt(clock.Now())}] = clan
			w.mu.Unlock()
		}
		return clan, err
	}
	return w
}

// intercept counts clan requests and applies the failures and description
// changes the test asked for.
func (w *world) intercept(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		tag, isClan := strings.CutPrefix(r.URL.Path, "/v1/clans/#")
		if !isClan || strings.Contains(tag, "/") {
			next.ServeHTTP(rw, r)
			return
		}
		w.mu.Lock()
		w.requests[fetchKey{tag: tag, slot: models.SnapshotFourHourly.SlotAt(w.clock.Now())}]++
		failing := w.failing[tag]
		description, rewrite := w.descriptions[tag]
		hold := w.hold
		w.mu.Unlock()
		if hold != nil {
			hold(tag)
		}
		if failing {
			rw.Header().Set("Content-Type", "application/json")
			rw.WriteHeader(http.StatusServiceUnavailable)
			_, _ = rw.Write([]byte(`{"reason":"inMaintenance","message":"the game is in maintenance"}`))
			return
		}
		if !rewrite {
			next.ServeHTTP(rw, r)
			return
		}
		recorded := httptest.NewRecorder()
		next.ServeHTTP(recorded, r)
		var clan map[string]any
		if err := json.Unmarshal(recorded.Body.Bytes(), &clan); err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		clan["description"] = description
		body, _ := json.Marshal(clan)
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(recorded.Code)
		_, _ = bytes.NewReader(body).WriteTo(rw)
	})
}

// failTag makes the upstream answer 503 (maintenance) for tag, or not.
func (w *world) failTag(tag string, failing bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failing[tag] = failing
}

// holdClanRequests calls hold with each clan request from now on, before
// it is answered.
func (w *world) holdClanRequests(hold func(tag string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hold = hold
}

// describe makes the upstream serve tag with this description.
func (w *world) describe(tag, description string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.descriptions[tag] = description
}

// fetchCount is how many requests for tag reached the upstream while slot
// was the current 4-hourly slot.
func (w *world) fetchCount(tag string, slot time.Time) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.requests[fetchKey{tag: tag, slot: slot}]
}

// servedAt is what the upstream answered for tag during slot.
func (w *world) servedAt(t *testing.T, tag string, slot time.Time) models.ClanDetails {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	clan, ok := w.served[fetchKey{tag: tag, slot: slot}]
	if !ok {
		t.Fatalf("the upstream served nothing for %s during slot %s", tag, slot)
	}
	return clan
}
