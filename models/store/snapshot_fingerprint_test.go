package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
)

// fingerprintChange is what a write must do to a fingerprint.
type fingerprintChange int

const (
	anyChange fingerprintChange = iota // the answer does not depend on it either way
	unchanged
	changed
)

// historyFingerprint returns the fingerprint of the history of (tag,
// kind) in the days window at now, and checks that the full read gives
// the same one.
func historyFingerprint(t *testing.T, ctx context.Context, clans *store.Store, tag string, kind models.SnapshotKind, now time.Time, days int) models.HistoryFingerprint {
	t.Helper()
	from, to := models.HistoryWindow(now, days)
	fingerprint, err := clans.ClanHistoryFingerprint(ctx, tag, kind, from, to)
	if err != nil {
		t.Fatalf("%s fingerprint of %s: %v", kind, tag, err)
	}
	_, read, err := clans.FingerprintedClanHistory(ctx, tag, kind, from, to)
	if err != nil && !errors.Is(err, models.ErrNotTracked) && !errors.Is(err, models.ErrWeeklyNotEnabled) {
		t.Fatalf("%s history of %s: %v", kind, tag, err)
	}
	if read != fingerprint {
		t.Fatalf("%s history of %s read with fingerprint %+v, but the fingerprint query says %+v", kind, tag, read, fingerprint)
	}
	return fingerprint
}

func TestClanHistoryFingerprintChangesWithTheAnswer(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		const tag, days = "2CCCP", 1 // the window: 2026-03-09 00:00 to now, 2026-03-10 09:30
		now := trackedAt
		var clanID int64
		save := func(kind models.SnapshotKind, slot string) func() {
			return func() {
				if stored, err := clans.SaveSnapshots(ctx, clanID, kind, []models.HistorySnapshot{models.SnapshotOf(clanFixture(tag, 50, 3), at(slot))}); err != nil || stored != 1 {
					t.Fatalf("save %s snapshot at %s: %v, %v", kind, slot, stored, err)
				}
			}
		}
		setWeekly := func(on bool) func() {
			return func() {
				if _, err := clans.SetWeekly(ctx, tag, on); err != nil {
					t.Fatal(err)
				}
			}
		}
		steps := []struct {
			name               string
			write              func()
			fourHourly, weekly fingerprintChange
		}{
			{"tracking starts", func() { clanID = trackFixture(t, clans, tag, now).Clan.ID }, changed, changed},
			{"a snapshot before the window", save(models.SnapshotFourHourly, "2026-03-08T20:00:00Z"), unchanged, unchanged},
			{"a snapshot after the window", save(models.SnapshotFourHourly, "2026-03-10T12:00:00Z"), unchanged, unchanged},
			{"a weekly snapshot in the window", save(models.SnapshotWeekly, "2026-03-09T23:00:00Z"), unchanged, changed},
			{"a snapshot in the window", save(models.SnapshotFourHourly, "2026-03-09T16:00:00Z"), changed, unchanged},
			{"a snapshot at the window's end", save(models.SnapshotFourHourly, "2026-03-10T04:00:00Z"), changed, unchanged},
			{"a snapshot at the window's start", save(models.SnapshotFourHourly, "2026-03-09T00:00:00Z"), changed, unchanged},
			{"weekly collection on", setWeekly(true), anyChange, changed},
			{"weekly collection on again", setWeekly(true), unchanged, unchanged},
			{"weekly collection off", setWeekly(false), anyChange, changed},
			{"tracking stops", func() {
				if _, err := clans.Untrack(ctx, tag, now); err != nil {
					t.Fatal(err)
				}
			}, changed, changed},
			{"tracking starts again", func() { trackFixture(t, clans, tag, now) }, changed, changed},
			{"retention deletes the window's first slot", func() {
				cutoff := at("2026-03-09T01:00:00Z")
				if _, err := clans.PruneHistory(ctx, cutoff, cutoff); err != nil {
					t.Fatal(err)
				}
			}, changed, unchanged},
		}
		fourHourly := historyFingerprint(t, ctx, clans, tag, models.SnapshotFourHourly, now, days)
		weekly := historyFingerprint(t, ctx, clans, tag, models.SnapshotWeekly, now, days)
		for _, step := range steps {
			step.write()
			for _, check := range []struct {
				kind   models.SnapshotKind
				last   *models.HistoryFingerprint
				expect fingerprintChange
			}{{models.SnapshotFourHourly, &fourHourly, step.fourHourly}, {models.SnapshotWeekly, &weekly, step.weekly}} {
				got := historyFingerprint(t, ctx, clans, tag, check.kind, now, days)
				switch {
				case check.expect == changed && got == *check.last:
					t.Errorf("%s: the %s fingerprint stayed %+v", step.name, check.kind, got)
				case check.expect == unchanged && got != *check.last:
					t.Errorf("%s: the %s fingerprint moved from %+v to %+v", step.name, check.kind, *check.last, got)
				}
				*check.last = got
			}
		}
	})
}

func TestClanHistoryFingerprintOfAnUnknownClan(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		from, to := models.HistoryWindow(trackedAt, 7)
		got, err := clans.ClanHistoryFingerprint(ctx, "2CCCP", models.SnapshotFourHourly, from, to)
		if err != nil || got != (models.HistoryFingerprint{}) {
			t.Fatalf("fingerprint of a clan never tracked: %+v, %v; want the zero fingerprint", got, err)
		}
		if _, read, err := clans.FingerprintedClanHistory(ctx, "2CCCP", models.SnapshotFourHourly, from, to); !errors.Is(err, models.ErrNotTracked) || read != got {
			t.Fatalf("history of a clan never tracked: fingerprint %+v, %v; want %+v, ErrNotTracked", read, err, got)
		}
	})
}
