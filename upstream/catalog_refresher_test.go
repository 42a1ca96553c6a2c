package upstream_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/catalog"
)

// gameMode is how the fake game API answers the card and location lists.
type gameMode int32

const (
	gameUp      gameMode = iota // the fixtures, locations in two pages
	gameDown                    // 503 in maintenance
	gameGarbage                 // 200 with a body that does not decode
	gameEmpty                   // 200 with empty lists
)

// fakeGame is a game API serving the catalog fixtures; cards receives a
// value for each /cards request.
type fakeGame struct {
	mode  atomic.Int32
	cards chan struct{}
	url   string
}

func newFakeGame(t *testing.T) *fakeGame {
	t.Helper()
	read := func(name string) []byte {
		body, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return body
	}
	cards, page1, page2 := read("cards_current.json"), read("locations_page1.json"), read("locations_page2.json")
	g := &fakeGame{cards: make(chan struct{}, 100)}
	g.url = fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/cards" {
			g.cards <- struct{}{}
		}
		w.Header().Set("Content-Type", "application/json")
		switch gameMode(g.mode.Load()) {
		case gameDown:
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"reason":"inMaintenance"}`))
			return
		case gameGarbage:
			_, _ = w.Write([]byte(`{"items": [{"id": "not a number"`))
			return
		case gameEmpty:
			_, _ = w.Write([]byte(`{"items": [], "paging": {"cursors": {}}}`))
			return
		}
		switch {
		case r.URL.Path == "/v1/cards":
			_, _ = w.Write(cards)
		case r.URL.Path == "/v1/locations" && r.URL.Query().Get("after") == "":
			_, _ = w.Write(page1)
		case r.URL.Path == "/v1/locations" && r.URL.Query().Get("after") == "eyJwb3MiOjR9":
			_, _ = w.Write(page2)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"reason":"notFound"}`))
		}
	})
	return g
}

func (g *fakeGame) set(mode gameMode) { g.mode.Store(int32(mode)) }

// newRefresher is a fresh client of g (as after a restart) and its
// refresher over store, logging into the returned buffer.
func newRefresher(t *testing.T, g *fakeGame, db upstream.CatalogStore, clock models.Clock) (*upstream.Client, *upstream.CatalogRefresher, *logBuffer) {
	t.Helper()
	client, _ := newClient(t, g.url, upstream.Config{Clock: clock})
	logs := &logBuffer{}
	refresher, err := upstream.NewCatalogRefresher(client, db, upstream.CatalogRefresherConfig{
		Clock: clock, Logger: slog.New(slog.NewTextHandler(logs, nil)), CheckEvery: time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	return client, refresher, logs
}

// wantGameData fails unless cat holds the fixtures' lists merged over
// the built-in catalog.
func wantGameData(t *testing.T, cat *catalog.Catalog) {
	t.Helper()
	if got, _ := cat.Card(26000095); got != (catalog.Card{ID: 26000095, Key: "goblin-machine", Name: "Goblin Machine", Elixir: 5, Type: catalog.TypeTroop, Rarity: catalog.RarityLegendary}) {
		t.Errorf("new card %+v", got)
	}
	if got, _ := cat.Card(28000026); got.Type != catalog.TypeSpell || got.Rarity != catalog.RarityEpic || got.Key != "void" {
		t.Errorf("new spell %+v", got)
	}
	if got, _ := cat.Card(26000000); got.Key != "knight" || got.Name != "Knight" || got.Description == "" {
		t.Errorf("known card lost its built-in facts: %+v", got)
	}
	if got, _ := cat.Location(57000007); got.Name != "Afghanistan" || got.Code() != "AF" {
		t.Errorf("listed country %+v", got)
	}
	if got, _ := cat.Location(57000006); got.Code() != "_INT" {
		t.Errorf("listed region %+v lost its legacy code", got)
	}
	if got, ok := cat.Location(57000999); !ok || got.Name != "Antarctica" || got.Code() != "_AN" {
		t.Errorf("region of the second page %+v, %v", got, ok)
	}
}

func TestCatalogRefresh(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		start := time.Date(2025, 6, 10, 4, 0, 0, 0, time.UTC)
		clock := models.NewManualClock(start)
		game := newFakeGame(t)

		// Up: the lists are fetched, used and stored.
		client, refresher, logs := newRefresher(t, game, db, clock)
		if _, ok := client.Catalog().Card(26000095); ok {
			t.Fatal("the built-in catalog already has the fixture's new card: the test proves nothing")
		}
		if did, err := refresher.RefreshIfDue(ctx); !did || err != nil {
			t.Fatalf("first RefreshIfDue = %v, %v; want a refresh that works", did, err)
		}
		wantGameData(t, client.Catalog())
		for _, kind := range []string{"cards", "locations"} {
			stored, err := db.GameCatalog(ctx, kind)
			if err != nil || !stored.FetchedAt.Equal(start) || !strings.Contains(string(stored.Body), "57000999") == (kind == "locations") {
				t.Errorf("stored %s: fetched at %v, %v", kind, stored.FetchedAt, err)
			}
		}

		// Daily: nothing before a day has passed.
		clock.Advance(23 * time.Hour)
		if did, _ := refresher.RefreshIfDue(ctx); did {
			t.Error("refreshed again within the day")
		}

		// Garbage, then an empty list: the current copy stays, one line
		// per list says so, and the retry comes after a bounded backoff.
		for _, mode := range []gameMode{gameGarbage, gameEmpty} {
			game.set(mode)
			clock.Advance(24 * time.Hour)
			did, err := refresher.RefreshIfDue(ctx)
			if !did || err == nil {
				t.Fatalf("mode %d: RefreshIfDue = %v, %v; want a failed refresh", mode, did, err)
			}
			wantGameData(t, client.Catalog())
			if did, _ := refresher.RefreshIfDue(ctx); did {
				t.Errorf("mode %d: retried at once", mode)
			}
			clock.Advance(20 * time.Minute)
			if did, _ := refresher.RefreshIfDue(ctx); !did {
				t.Errorf("mode %d: no retry after the bounded backoff", mode)
			}
		}
		if got := strings.Count(logs.String(), "game catalog refresh failed"); got != 8 {
			t.Errorf("%d failure lines, want 8 (2 lists x 4 failed refreshes):\n%s", got, logs.String())
		}
		if !strings.Contains(logs.String(), `kind=locations keeping="copy fetched at 2025-06-10T04:00:00Z"`) {
			t.Errorf("a failure line lacks its context:\n%s", logs.String())
		}

		// Down, after a restart: the stored copy is in use.
		game.set(gameDown)
		restarted, again, againLogs := newRefresher(t, game, db, clock)
		again.LoadStored(ctx)
		wantGameData(t, restarted.Catalog())
		if err := again.Refresh(ctx); !errors.Is(err, models.ErrUnavailable) {
			t.Errorf("Refresh with the game API down = %v, want unavailable", err)
		}
		wantGameData(t, restarted.Catalog())
		if !strings.Contains(againLogs.String(), "kind=cards") {
			t.Errorf("the failure is not logged:\n%s", againLogs.String())
		}
	})
}

func TestCatalogStoredGarbage(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(time.Date(2025, 6, 10, 4, 0, 0, 0, time.UTC))
		if err := db.SaveGameCatalog(ctx, models.GameCatalogCopy{Kind: "cards", Body: []byte(`{"not": "a list"}`), FetchedAt: clock.Now()}); err != nil {
			t.Fatal(err)
		}
		client, refresher, logs := newRefresher(t, newFakeGame(t), db, clock)
		refresher.LoadStored(ctx)
		if got, ok := client.Catalog().Card(26000000); !ok || got.Name != "Knight" {
			t.Errorf("built-in card %+v, %v", got, ok)
		}
		if !strings.Contains(logs.String(), "stored game catalog unusable") || !strings.Contains(logs.String(), "kind=cards") {
			t.Errorf("the unusable copy is not logged:\n%s", logs.String())
		}
	})
}

func TestCatalogRefresherRun(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	clock := models.NewManualClock(time.Date(2025, 6, 10, 4, 0, 0, 0, time.UTC))
	game := newFakeGame(t)
	client, refresher, _ := newRefresher(t, game, db, clock)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		refresher.Run(ctx)
	}()
	waitFor := func(what string) {
		t.Helper()
		select {
		case <-game.cards:
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s", what)
		}
	}
	waitFor("fetch at start")
	clock.Advance(upstream.CatalogRefreshEvery)
	waitFor("fetch a day later")
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop")
	}
	wantGameData(t, client.Catalog())
}
