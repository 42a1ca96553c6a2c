package endtoend_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestTrackRoute(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newTrackingEnv(t, db)
		tests := []struct {
			name   string
			path   string
			status int
			text   string
		}{
			{"address in the description", "/clan/" + e.withAddress + "/track", http.StatusOK, ""},
			{"already tracked", "/clan/%23" + e.withAddress + "/track", http.StatusOK, ""},
			{"address missing", "/clan/" + e.withoutAddress + "/track", http.StatusExpectationFailed, "clan should have 'crowns.example' in description"},
			{"unknown clan", "/clan/" + tagUnknown + "/track", http.StatusNotFound, "Not found"},
			{"bad tag", "/clan/ABC/track", http.StatusBadRequest, "illegal characters in tag 'ABC' (allowed: 0289CGJLPQRUVY)"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				status, body, _ := e.get(t, tt.path)
				if tt.status != http.StatusOK {
					wantError(t, status, body, tt.status, tt.text)
					return
				}
				if status != http.StatusOK || string(body) != `{"success":true}` {
					t.Fatalf("answer %d %s, want 200 {\"success\":true}", status, body)
				}
			})
		}
		clan, err := e.clans.TrackedClan(context.Background(), e.withAddress)
		if err != nil || clan.TrackedByKeyID == nil || *clan.TrackedByKeyID != testKeyID || !clan.TrackedSince.Equal(e.clock.Now()) {
			t.Fatalf("tracked clan = %+v, %v; want recorded as asked by key %d at %s", clan, err, testKeyID, e.clock.Now())
		}
		if _, err := e.clans.TrackedClan(context.Background(), e.withoutAddress); err == nil {
			t.Fatal("a clan without the address was recorded")
		}
	})
}

func TestTrackRouteWhenUpstreamIsDown(t *testing.T) {
	e := newTrackingEnv(t, storetest.Open(t, store.DialectSQLite))
	e.world.setDown(true)
	status, body, header := e.get(t, "/clan/"+e.withAddress+"/track")
	wantError(t, status, body, http.StatusServiceUnavailable, "Temporarily unavailable")
	if header.Get("Retry-After") != "30" {
		t.Fatalf("Retry-After = %q, want the upstream's 30", header.Get("Retry-After"))
	}
}

func TestTrackingRoute(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newTrackingEnv(t, db)
		tracking := func() models.ClanTracking {
			t.Helper()
			status, body, _ := e.get(t, "/clan/"+e.withAddress+"/tracking")
			if status != http.StatusOK {
				t.Fatalf("tracking answered %d %s", status, body)
			}
			var fields map[string]any
			if err := json.Unmarshal(body, &fields); err != nil || len(fields) != 5 {
				t.Fatalf("tracking body %s, want exactly tag, active, available, legible, snapshotCount", body)
			}
			var got models.ClanTracking
			_ = json.Unmarshal(body, &got)
			return got
		}
		if got := tracking(); got != (models.ClanTracking{Tag: e.withAddress}) {
			t.Fatalf("never tracked: %+v, want false and 0 values", got)
		}
		if status, body, _ := e.get(t, "/clan/"+e.withAddress+"/track"); status != http.StatusOK {
			t.Fatalf("track: %d %s", status, body)
		}
		want := models.ClanTracking{Tag: e.withAddress, Active: true, Available: true, Legible: true, SnapshotCount: 1}
		if got := tracking(); got != want {
			t.Fatalf("after track: %+v, want %+v", got, want)
		}
		e.clock.Advance(3 * time.Hour) // 12:30: the scheduler takes the 12:00 slot
		if _, err := e.scheduler.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
		want.SnapshotCount = 2
		if got := tracking(); got != want {
			t.Fatalf("after a scheduled snapshot: %+v, want %+v", got, want)
		}
	})
}

func TestAPIRequiresTracking(t *testing.T) {
	_, err := api.New(api.Config{SupportInfo: supportInfo, RateLimitPerSecond: 100, RateLimitBurst: 100},
		api.Dependencies{Keys: acceptingKeys{}, Game: noGame{}, Health: storetest.Open(t, store.DialectSQLite)})
	if err == nil {
		t.Fatal("api.New accepted dependencies without the clan tracker and history")
	}
}
