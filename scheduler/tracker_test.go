package scheduler_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestTrackClan(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 2)
		failing := e.world.trackable[1]
		e.world.failTag(failing, true)
		tests := []struct {
			name    string
			tag     string
			check   func(error) bool
			tracked bool
		}{
			{"address in the description", e.world.trackable[0], func(err error) bool { return err == nil }, true},
			{"address missing", e.world.untrackable, func(err error) bool {
				var missing *models.AddressMissingError
				return errors.As(err, &missing) && missing.Address == trackAddress &&
					err.Error() == "clan should have 'crowns.example' in description"
			}, false},
			{"unknown clan", "9999", func(err error) bool { return errors.Is(err, models.ErrNotFound) }, false},
			{"upstream down", failing, func(err error) bool { return errors.Is(err, models.ErrUnavailable) }, false},
		}
		for _, tt := range tests {
			err := e.tracker.TrackClan(ctx, tt.tag, 42)
			if !tt.check(err) {
				t.Errorf("%s: TrackClan = %v", tt.name, err)
			}
			status, _ := e.clans.TrackingStatus(ctx, tt.tag)
			if status.Active != tt.tracked || status.Available != tt.tracked {
				t.Errorf("%s: status %+v, want tracked=%v with its snapshot", tt.name, status, tt.tracked)
			}
		}
		clan, err := e.clans.TrackedClan(ctx, e.world.trackable[0])
		if err != nil || clan.TrackedByKeyID == nil || *clan.TrackedByKeyID != 42 || clan.TrackedBy != models.TrackedByKey || clan.Override {
			t.Fatalf("tracked clan = %+v, %v; want recorded as asked by key 42", clan, err)
		}
	})
}

func TestTrackingTwiceAsksTheUpstreamOnce(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 1)
		tag := e.world.trackable[0]
		for range 3 {
			if err := e.tracker.TrackClan(ctx, tag, 7); err != nil {
				t.Fatal(err)
			}
		}
		if n := e.world.fetchCount(tag, at("2026-03-10T08:00:00Z")); n != 1 {
			t.Fatalf("upstream asked %d times, want 1", n)
		}
		if status, _ := e.clans.TrackingStatus(ctx, tag); status.SnapshotCount != 1 {
			t.Fatalf("snapshots = %d, want 1", status.SnapshotCount)
		}
	})
}

func TestTrackAsOperatorOverridesTheAddressCheck(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 0)
		result, err := e.tracker.TrackAsOperator(ctx, e.world.untrackable)
		if err != nil {
			t.Fatal(err)
		}
		if result.AlreadyTracked || !result.SnapshotStored || !result.Clan.Override || result.Clan.TrackedBy != models.TrackedByOperator ||
			result.Clan.Legible || result.Clan.TrackedByKeyID != nil {
			t.Fatalf("operator track = %+v, want an override, not legible, snapshot stored", result)
		}
		again, err := e.tracker.TrackAsOperator(ctx, e.world.untrackable)
		if err != nil || !again.AlreadyTracked {
			t.Fatalf("second operator track = %+v, %v; want already tracked", again, err)
		}
		if _, err := e.tracker.TrackAsOperator(ctx, "9999"); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("operator track of an unknown clan: %v, want ErrNotFound", err)
		}
	})
}

// TestAnUntrackedClanIsTrackedAgainOnRequest: a clan the operator
// untracked is not "already tracked": a developer's track request fetches
// it again and tracks it, its history served again.
func TestAnUntrackedClanIsTrackedAgainOnRequest(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		e := newEnv(t, db, 1)
		tag := e.world.trackable[0]
		if err := e.tracker.TrackClan(ctx, tag, 7); err != nil {
			t.Fatal(err)
		}
		if changed, err := e.clans.Untrack(ctx, tag, e.clock.Now()); err != nil || !changed {
			t.Fatalf("Untrack = %v, %v", changed, err)
		}
		e.clock.Advance(4 * time.Hour) // the 12:00 slot
		if err := e.tracker.TrackClan(ctx, tag, 8); err != nil {
			t.Fatalf("track request after the clan was untracked: %v", err)
		}
		status, err := e.clans.TrackingStatus(ctx, tag)
		if err != nil || !status.Active {
			t.Fatalf("tracking status after the new request = %+v, %v; want active", status, err)
		}
		if got := historySlots(e.history(t, tag, models.SnapshotFourHourly, 0)); !reflect.DeepEqual(got, []string{"2026-03-10-08-00", "2026-03-10-12-00"}) {
			t.Fatalf("history after tracking again = %v, want the 08:00 and 12:00 slots", got)
		}
	})
}
