package api

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
)

// TestABattlesAnswerStillTrueAtItsRefreshKeepsItsForms: when a player's
// battles read again at the end of their answer's lifetime are the ones
// it was rendered from, the answer stays the one that was, with the
// packed form its identity clients made, instead of being compressed
// anew and packed again by the next identity client; battles that
// changed make a new answer.
func TestABattlesAnswerStillTrueAtItsRefreshKeepsItsForms(t *testing.T) {
	clock := models.NewManualClock(time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC))
	game := &fixedBattles{battles: manyBattles(400, "Royal")}
	s, err := New(Config{
		RateLimitPerSecond: 1e9, RateLimitBurst: 1e9, Clock: clock,
		// Room for the answer compressed and packed, not plain.
		CacheTTL: time.Minute, CacheBytes: 64 << 10,
	}, Dependencies{Keys: anyKey{}, Game: game, Health: healthy{}, Tracker: noTracker{}, History: noHistory{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = s.Shutdown(context.Background()) })
	const cacheKey = "player/2PP/battles"
	serve := func(step string, gzip bool) *cachedAnswer {
		t.Helper()
		req := fasthttp.AcquireRequest()
		defer fasthttp.ReleaseRequest(req)
		req.SetRequestURI("/player/%232PP/battles")
		req.Header.Set("auth", "any")
		if gzip {
			req.Header.Set("Accept-Encoding", "gzip")
		}
		var ctx fasthttp.RequestCtx
		ctx.Init(req, nil, nil)
		s.App().Handler()(&ctx)
		if status := ctx.Response.StatusCode(); status != http.StatusOK {
			t.Fatalf("%s: status %d: %s", step, status, ctx.Response.Body())
		}
		answer, ok := s.cache.getString(cacheKey, clock.Now())
		if !ok {
			t.Fatalf("%s: the answer is not cached", step)
		}
		return answer
	}
	serve("first identity request", false)
	packed := serve("second identity request", false)
	if packed.packed == nil {
		t.Fatal("the answer has no packed form after two identity requests: nothing to keep")
	}

	clock.Advance(time.Minute + time.Second)
	if renewed := serve("refresh, same battles", true); renewed != packed || game.calls.Load() != 2 {
		t.Fatalf("after the refresh (%d game calls, want 2) the answer is a new one, packed form %v", game.calls.Load(), renewed.packed != nil)
	}

	game.battles = manyBattles(400, "Knight")
	clock.Advance(time.Minute + time.Second)
	if changed := serve("refresh, new battles", true); changed == packed || changed.etag == packed.etag {
		t.Fatal("battles that changed kept the answer of the old ones")
	}
}

// manyBattles are n battles whose JSON is well over 64 KiB.
func manyBattles(n int, deck string) []legacy.Battle {
	battles := make([]legacy.Battle, n)
	for i := range battles {
		battles[i] = legacy.Battle{Type: "PvP", DeckType: strings.Repeat(deck, 8), UTCTime: int64(1_700_000_000 + i)}
	}
	return battles
}

// fixedBattles is a game upstream whose every player has the same
// battles; it counts the calls.
type fixedBattles struct {
	GameData
	battles []legacy.Battle
	calls   atomic.Int64
}

func (g *fixedBattles) PlayerBattles(context.Context, string) ([]legacy.Battle, error) {
	g.calls.Add(1)
	return g.battles, nil
}

// anyKey verifies every key as key 1.
type anyKey struct{}

func (anyKey) VerifyCached(string, time.Time) (keys.Identity, error) {
	return keys.Identity{KeyID: 1}, nil
}

func (anyKey) VerifyAt(context.Context, string, time.Time) (keys.Identity, error) {
	return keys.Identity{KeyID: 1}, nil
}

type healthy struct{}

func (healthy) Ping(context.Context) error { return nil }

type noTracker struct{ ClanTracker }

// noHistory has no clan history; it only lets the server subscribe.
type noHistory struct{ ClanHistoryReader }

func (noHistory) SubscribeClanChanges(func(models.ClanChange)) func() { return func() {} }
