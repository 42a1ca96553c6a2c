package endtoend_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestHistoryRoutesRefusals(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newTrackingEnv(t, db)
		if status, body, _ := e.get(t, "/clan/"+e.withAddress+"/track"); status != http.StatusOK {
			t.Fatalf("track: %d %s", status, body)
		}
		tests := []struct {
			name   string
			path   string
			status int
			text   string
		}{
			{"never tracked", "/clan/" + tagUnknown + "/history", http.StatusExpectationFailed, "clan not tracked"},
			{"weekly of never tracked", "/clan/" + tagUnknown + "/history/weekly", http.StatusExpectationFailed, "clan not tracked"},
			{"weekly not enabled", "/clan/" + e.withAddress + "/history/weekly", http.StatusExpectationFailed, "weekly history not enabled for this clan"},
			{"days not a number", "/clan/" + e.withAddress + "/history?days=x", http.StatusBadRequest, "invalid value for 'days': not a whole number"},
			{"days too many", "/clan/" + e.withAddress + "/history?days=366", http.StatusBadRequest, "invalid value for 'days': must be between 0 and 365"},
			{"days negative", "/clan/" + e.withAddress + "/history?days=-1", http.StatusBadRequest, "invalid value for 'days': must be between 0 and 365"},
		}
		for _, tt := range tests {
			status, body, _ := e.get(t, tt.path)
			wantError(t, status, body, tt.status, tt.text)
		}
		if _, err := e.clans.Untrack(context.Background(), e.withAddress, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		status, body, _ := e.get(t, "/clan/"+e.withAddress+"/history")
		wantError(t, status, body, http.StatusExpectationFailed, "clan not tracked")
	})
}

func TestHistoryRouteServesWhatTheUpstreamServedAtEachSlot(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newTrackingEnv(t, db)
		trackedAt := e.clock.Now() // Tuesday 09:30, slot 08:00
		if status, body, _ := e.get(t, "/clan/"+e.withAddress+"/track"); status != http.StatusOK {
			t.Fatalf("track: %d %s", status, body)
		}
		if _, err := e.clans.SetWeekly(ctx, e.withAddress, true); err != nil {
			t.Fatal(err)
		}
		// The scheduler runs a minute into each slot until the next Tuesday.
		fetchedAt := map[time.Time]time.Time{models.SnapshotFourHourly.SlotAt(trackedAt): trackedAt}
		for slot := models.SnapshotFourHourly.NextSlot(trackedAt); slot.Before(trackedAt.AddDate(0, 0, 7)); slot = slot.Add(4 * time.Hour) {
			e.clock.Set(slot.Add(time.Minute))
			if _, err := e.scheduler.Tick(ctx); err != nil {
				t.Fatal(err)
			}
			fetchedAt[slot] = slot.Add(time.Minute)
		}
		weeklySlot := time.Date(2026, 3, 16, 23, 0, 0, 0, time.UTC)
		tests := []struct {
			path      string
			kind      models.SnapshotKind
			firstSlot time.Time
			count     int
		}{
			{"/clan/" + e.withAddress + "/history?days=0", models.SnapshotFourHourly, time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC), 3},
			{"/clan/" + e.withAddress + "/history", models.SnapshotFourHourly, models.SnapshotFourHourly.SlotAt(trackedAt), 7*6 + 1},
			{"/clan/" + e.withAddress + "/history/weekly?days=7", models.SnapshotWeekly, weeklySlot, 1},
		}
		for _, tt := range tests {
			status, body, header := e.get(t, tt.path)
			if status != http.StatusOK || header.Get("ETag") == "" {
				t.Fatalf("%s: %d %s", tt.path, status, body)
			}
			var got map[string]models.HistorySnapshot
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.count {
				t.Fatalf("%s: %d snapshots, want %d", tt.path, len(got), tt.count)
			}
			for slot := tt.firstSlot; len(got) > 0; slot = slot.Add(tt.kind.Period()) {
				key := models.HistoryKey(slot)
				snapshot, ok := got[key]
				if !ok {
					t.Fatalf("%s: no snapshot at %s", tt.path, key)
				}
				delete(got, key)
				fetched := fetchedAt[models.SnapshotFourHourly.SlotAt(slot)]
				if tt.kind == models.SnapshotWeekly {
					// The first tick inside the weekly window (Monday
					// 23:00 to Tuesday 03:00) is Tuesday 00:01.
					fetched = time.Date(2026, 3, 17, 0, 1, 0, 0, time.UTC)
				}
				want := models.SnapshotOf(e.world.servedAt(t, e.withAddress, fetched), slot)
				want.Slot = time.Time{}
				if !reflect.DeepEqual(snapshot, want) {
					t.Fatalf("%s: snapshot %s = %+v, want what the upstream served: %+v", tt.path, key, snapshot, want)
				}
			}
		}
	})
}
