package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestTrackStoresClanAndCurrentSlot(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		now := trackedAt
		first := trackFixture(t, clans, "2CCCP", now)
		if first.AlreadyTracked || !first.SnapshotStored {
			t.Fatalf("first track = %+v, want a new clan with its snapshot stored", first)
		}
		clan := first.Clan
		if !clan.Active || clan.Override || clan.TrackedBy != models.TrackedByKey || clan.TrackedByKeyID == nil || *clan.TrackedByKeyID != 42 {
			t.Fatalf("tracked clan = %+v, want active, by key 42, no override", clan)
		}
		if !clan.TrackedSince.Equal(now) || clan.LastCheckedAt == nil || !clan.LastCheckedAt.Equal(now) || !clan.Legible {
			t.Fatalf("tracked clan times = since %s checked %v legible %v, want %s", clan.TrackedSince, clan.LastCheckedAt, clan.Legible, now)
		}
		job, err := clans.SnapshotJobStatus(ctx, clan.ID, models.SnapshotFourHourly, at("2026-03-10T08:00:00Z"))
		if err != nil || job.State != models.JobDone {
			t.Fatalf("job of the current slot = %+v, %v; want done", job, err)
		}

		again, err := clans.Track(ctx, models.TrackRequest{
			Tag: "2CCCP", Clan: clanFixture("2CCCP", 50, 1), Legible: true, By: models.TrackedByKey, KeyID: 7, Now: now.Add(time.Minute),
		})
		if err != nil {
			t.Fatal(err)
		}
		if !again.AlreadyTracked || again.SnapshotStored || *again.Clan.TrackedByKeyID != 42 || !again.Clan.TrackedSince.Equal(now) {
			t.Fatalf("second track = %+v, want already tracked, nothing changed or stored", again)
		}
		status, err := clans.TrackingStatus(ctx, "2CCCP")
		if err != nil {
			t.Fatal(err)
		}
		want := models.ClanTracking{Tag: "2CCCP", Active: true, Available: true, Legible: true, SnapshotCount: 1}
		if status != want {
			t.Fatalf("tracking status = %+v, want %+v", status, want)
		}
	})
}

func TestUntrackKeepsHistoryAndRetrackRenews(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		now := trackedAt
		trackFixture(t, clans, "2CCCP", now)
		changed, err := clans.Untrack(ctx, "2CCCP", now.Add(time.Hour))
		if err != nil || !changed {
			t.Fatalf("untrack = %v, %v; want changed", changed, err)
		}
		if changed, err := clans.Untrack(ctx, "2CCCP", now.Add(time.Hour)); err != nil || changed {
			t.Fatalf("second untrack = %v, %v; want no change", changed, err)
		}
		if _, err := clans.Untrack(ctx, "9999", now); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("untrack of an unknown clan: %v, want ErrNotFound", err)
		}
		status, err := clans.TrackingStatus(ctx, "2CCCP")
		if err != nil {
			t.Fatal(err)
		}
		if status.Active || status.SnapshotCount != 1 {
			t.Fatalf("after untrack status = %+v, want inactive with its snapshot kept", status)
		}
		later := now.Add(5 * time.Hour)
		result, err := clans.Track(ctx, models.TrackRequest{Tag: "2CCCP", Clan: clanFixture("2CCCP", 50, 2), By: models.TrackedByOperator, Now: later})
		if err != nil {
			t.Fatal(err)
		}
		if result.AlreadyTracked || !result.Clan.Active || !result.Clan.Override || result.Clan.TrackedByKeyID != nil ||
			!result.Clan.TrackedSince.Equal(later) || result.Clan.Legible {
			t.Fatalf("re-track by operator = %+v, want active again, override, since %s, not legible", result.Clan, later)
		}
		if status, _ := clans.TrackingStatus(ctx, "2CCCP"); status.SnapshotCount != 2 {
			t.Fatalf("after re-track snapshot count = %d, want 2", status.SnapshotCount)
		}
	})
}

func TestSetWeekly(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		now := trackedAt
		trackFixture(t, clans, "2CCCP", now)
		tests := []struct {
			name    string
			tag     string
			on      bool
			changed bool
			err     error
		}{
			{"switch on", "2CCCP", true, true, nil},
			{"already on", "2CCCP", true, false, nil},
			{"switch off", "2CCCP", false, true, nil},
			{"unknown clan", "9999", true, false, models.ErrNotFound},
		}
		for _, tt := range tests {
			changed, err := clans.SetWeekly(ctx, tt.tag, tt.on)
			if changed != tt.changed || !errors.Is(err, tt.err) {
				t.Errorf("%s: SetWeekly = %v, %v; want %v, %v", tt.name, changed, err, tt.changed, tt.err)
			}
		}
		if _, err := clans.Untrack(ctx, "2CCCP", now); err != nil {
			t.Fatal(err)
		}
		if _, err := clans.SetWeekly(ctx, "2CCCP", true); !errors.Is(err, models.ErrNotTracked) {
			t.Errorf("SetWeekly of an untracked clan: %v, want ErrNotTracked", err)
		}
	})
}

func TestTrackingStatusOfUnknownClan(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		status, err := db.TrackingStatus(context.Background(), "2CCCP")
		if err != nil {
			t.Fatal(err)
		}
		if want := (models.ClanTracking{Tag: "2CCCP"}); status != want {
			t.Fatalf("status = %+v, want %+v", status, want)
		}
	})
}

func TestListTrackedClans(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		now := trackedAt
		trackFixture(t, clans, "9QQQ", now)
		trackFixture(t, clans, "2CCCP", now)
		trackFixture(t, clans, "8LLL", now)
		if _, err := clans.SetWeekly(ctx, "9QQQ", true); err != nil {
			t.Fatal(err)
		}
		if _, err := clans.Untrack(ctx, "8LLL", now); err != nil {
			t.Fatal(err)
		}
		list, err := clans.ListTrackedClans(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0].Tag != "2CCCP" || list[1].Tag != "9QQQ" || !list[1].Weekly || list[0].Weekly {
			t.Fatalf("list = %+v, want 2CCCP then 9QQQ (weekly)", list)
		}
		if list[0].SnapshotCount != 1 || list[0].LastSlot == nil || !list[0].LastSlot.Equal(at("2026-03-10T08:00:00Z")) {
			t.Fatalf("2CCCP summary = %+v, want 1 snapshot, last slot 08:00", list[0])
		}
		all, err := clans.ListTrackedClans(ctx, true)
		if err != nil || len(all) != 3 {
			t.Fatalf("list with untracked = %d rows, %v; want 3", len(all), err)
		}
	})
}
