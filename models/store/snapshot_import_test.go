package store_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
)

func TestSaveSnapshotsStoresABatchAsSavedOneByOne(t *testing.T) {
	eachClanStore(t, func(t *testing.T, ctx context.Context, clans *store.Store) {
		clanID := trackFixture(t, clans, "2CCCP", trackedAt).Clan.ID // 2026-03-10 08:00
		changes := recordChanges(t, clans)
		var batch []models.HistorySnapshot
		for i := range 300 { // more than one insert statement, back to 2026-01-20
			slot := at("2026-03-10T04:00:00Z").Add(-time.Duration(i) * 4 * time.Hour)
			batch = append(batch, models.SnapshotOf(clanFixture("2CCCP", 50-i%7, i), slot))
		}
		// On PostgreSQL the partitions of three months are made on the way.
		stored, err := clans.SaveSnapshots(ctx, clanID, models.SnapshotFourHourly, batch)
		if err != nil || stored != len(batch) {
			t.Fatalf("SaveSnapshots = %d, %v; want %d stored", stored, err, len(batch))
		}
		if got := changes.take(); !reflect.DeepEqual(got, []models.ClanChange{{Tag: "2CCCP"}}) {
			t.Fatalf("a batch announced %v, want one change", got)
		}
		again, err := clans.SaveSnapshots(ctx, clanID, models.SnapshotFourHourly, append(batch[:2:2], models.SnapshotOf(clanFixture("2CCCP", 3, 1), at("2026-03-10T12:00:00Z"))))
		if err != nil || again != 1 {
			t.Fatalf("a batch with two stored slots and a new one stored %d (%v), want 1", again, err)
		}
		history, err := clans.ClanHistory(ctx, "2CCCP", models.SnapshotFourHourly, batch[len(batch)-1].Slot, at("2026-03-10T04:00:00Z"))
		if err != nil || len(history) != len(batch) {
			t.Fatalf("history has %d snapshots (%v), want %d", len(history), err, len(batch))
		}
		for i, snapshot := range history {
			if want := batch[len(batch)-1-i]; !reflect.DeepEqual(snapshot, want) {
				t.Fatalf("snapshot %s = %+v, want what was saved %+v", models.HistoryKey(snapshot.Slot), snapshot, want)
			}
		}
	})
}
