package store_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestPruneHistory(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clans := db
		now := trackedAt
		id := trackFixture(t, clans, "2CCCP", now).Clan.ID
		if _, err := clans.SetWeekly(ctx, "2CCCP", true); err != nil {
			t.Fatal(err)
		}
		old := []string{"2025-01-15T04:00:00Z", "2025-02-10T08:00:00Z"}
		kept := []string{"2025-02-20T12:00:00Z", "2025-03-05T00:00:00Z"}
		for _, slot := range append(slices.Clone(old), kept...) {
			for _, kind := range []models.SnapshotKind{models.SnapshotFourHourly, models.SnapshotWeekly} {
				if _, err := clans.SaveSnapshots(ctx, id, kind, []models.HistorySnapshot{models.SnapshotOf(clanFixture("2CCCP", 50, 3), at(slot))}); err != nil {
					t.Fatal(err)
				}
			}
		}
		oldJobSlot := at("2025-01-15T04:00:00Z")
		if _, err := clans.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, oldJobSlot, oldJobSlot); err != nil {
			t.Fatal(err)
		}
		if _, err := clans.ExpireSnapshotJobs(ctx, oldJobSlot.AddDate(0, 0, 1)); err != nil {
			t.Fatal(err)
		}

		cutoff := at("2025-02-15T00:00:00Z")
		report, err := clans.PruneHistory(ctx, cutoff, cutoff)
		if err != nil {
			t.Fatal(err)
		}
		wantRows := int64(4) // both kinds of both old slots
		if db.Dialect() == store.DialectPostgres {
			wantRows = 2 // January went with its partition
			if !reflect.DeepEqual(report.DroppedPartitions, []string{"clan_snapshots_p202501"}) {
				t.Errorf("dropped partitions %v, want January 2025 only", report.DroppedPartitions)
			}
			partitions, err := clans.SnapshotPartitions(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(partitions, "clan_snapshots_p202501") || !slices.Contains(partitions, "clan_snapshots_p202502") {
				t.Errorf("partitions after pruning: %v", partitions)
			}
		}
		if report.DeletedSnapshots != wantRows || report.DeletedJobs != 1 {
			t.Errorf("report = %+v, want %d rows and 1 job deleted", report, wantRows)
		}
		for _, kind := range []models.SnapshotKind{models.SnapshotFourHourly, models.SnapshotWeekly} {
			history, err := clans.ClanHistory(ctx, "2CCCP", kind, at("2024-01-01T00:00:00Z"), now)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"2025-02-20-12-00", "2025-03-05-00-00"}
			if kind == models.SnapshotFourHourly {
				want = append(want, "2026-03-10-08-00")
			}
			if got := historyKeys(history); !reflect.DeepEqual(got, want) {
				t.Errorf("%s history after pruning: %v, want %v", kind, got, want)
			}
		}
		if _, err := clans.SnapshotJobStatus(ctx, id, models.SnapshotFourHourly, oldJobSlot); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("old finished job kept: %v", err)
		}
		again, err := clans.PruneHistory(ctx, cutoff, cutoff)
		if err != nil || again.DeletedSnapshots != 0 || len(again.DroppedPartitions) != 0 {
			t.Errorf("second pass = %+v, %v; want nothing left to do", again, err)
		}
		// A snapshot in a dropped month can be written again: the partition
		// is recreated on demand.
		if _, err := clans.SaveSnapshots(ctx, id, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(clanFixture("2CCCP", 50, 3), at(old[0]))}); err != nil {
			t.Fatalf("write into a dropped month: %v", err)
		}
	})
}

// TestPruneHistoryDeletesPastOneBatch: a backlog of more old snapshots of
// one clan than one retention statement deletes (1000) goes in one pass,
// batch after batch, not a batch a pass.
func TestPruneHistoryDeletesPastOneBatch(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		id := trackFixture(t, db, "2CCCP", trackedAt).Clan.ID
		const backlog = 1001
		var old []models.HistorySnapshot
		for i := range backlog { // a minute apart on one day: one partition, which the cutoff straddles
			old = append(old, models.SnapshotOf(clanFixture("2CCCP", 1, i), at("2025-02-10T00:00:00Z").Add(time.Duration(i)*time.Minute)))
		}
		if stored, err := db.SaveSnapshots(ctx, id, models.SnapshotFourHourly, old); err != nil || stored != backlog {
			t.Fatalf("stored %d old snapshots, %v; want %d", stored, err, backlog)
		}
		report, err := db.PruneHistory(ctx, at("2025-02-15T00:00:00Z"), at("2025-02-15T00:00:00Z"))
		if err != nil || report.DeletedSnapshots != backlog {
			t.Fatalf("pass = %+v, %v; want the %d old snapshots deleted", report, err, backlog)
		}
		history, err := db.ClanHistory(ctx, "2CCCP", models.SnapshotFourHourly, at("2025-01-01T00:00:00Z"), trackedAt)
		if err != nil {
			t.Fatal(err)
		}
		if got := historyKeys(history); !reflect.DeepEqual(got, []string{"2026-03-10-08-00"}) {
			t.Fatalf("history after one pass: %d slots, want only the tracked one", len(got))
		}
	})
}

// TestPruneHistoryDeletesJobsByTheirOwnCutoff: finished jobs go by the
// jobs' cutoff, however far back the snapshots' one is.
func TestPruneHistoryDeletesJobsByTheirOwnCutoff(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		id := trackFixture(t, db, "2CCCP", trackedAt).Clan.ID
		slot := at("2026-01-15T04:00:00Z")
		if _, err := db.PlanSnapshotJobs(ctx, models.SnapshotFourHourly, slot, slot); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExpireSnapshotJobs(ctx, slot.AddDate(0, 0, 1)); err != nil {
			t.Fatal(err)
		}
		report, err := db.PruneHistory(ctx, at("2025-01-01T00:00:00Z"), at("2026-02-01T00:00:00Z"))
		if err != nil || report.DeletedJobs != 1 {
			t.Fatalf("pass = %+v, %v; want the missed job of January 2026 deleted", report, err)
		}
		if _, err := db.SnapshotJobStatus(ctx, id, models.SnapshotFourHourly, slot); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("finished job before the jobs' cutoff kept: %v", err)
		}
	})
}

func TestEnsureSnapshotPartitionsConcurrently(t *testing.T) {
	db := storetest.Open(t, store.DialectPostgres)
	ctx := context.Background()
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			errs <- db.EnsureSnapshotPartitions(ctx, at("2026-11-20T00:00:00Z"), at("2027-02-01T00:00:00Z"))
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	partitions, err := db.SnapshotPartitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"clan_snapshots_p202611", "clan_snapshots_p202612", "clan_snapshots_p202701", "clan_snapshots_p202702"}
	if !reflect.DeepEqual(partitions, want) {
		t.Fatalf("partitions = %v, want %v", partitions, want)
	}
}

// TestCreatingAPartitionDoesNotDeadlockAWriter: a writer that holds
// tracked_clans (a track request, between its clan row and its first
// snapshot) and a new month's partition being made at that moment both
// finish. A partition made with CREATE TABLE ... PARTITION OF held
// clan_snapshots while waiting for tracked_clans, and the writer's
// snapshot then waited for clan_snapshots: PostgreSQL broke the deadlock
// by failing one of them.
func TestCreatingAPartitionDoesNotDeadlockAWriter(t *testing.T) {
	db := storetest.Open(t, store.DialectPostgres)
	ctx := context.Background()
	clans := db
	id := trackFixture(t, clans, "2CCCP", trackedAt).Clan.ID

	writer := storetest.SQL(t, db).WithContext(ctx).Begin()
	defer writer.Rollback()
	if err := writer.Exec(`UPDATE tracked_clans SET name = name WHERE id = ?`, id).Error; err != nil {
		t.Fatal(err)
	}
	created := make(chan error, 1)
	go func() {
		created <- db.EnsureSnapshotPartitions(ctx, trackedAt.AddDate(0, 3, 0), trackedAt.AddDate(0, 3, 0))
	}()
	// The partition waits for the writer's hold on tracked_clans.
	waitForLockWait(t, db, "tracked_clans")
	slot := models.SnapshotFourHourly.SlotAt(trackedAt).Add(4 * time.Hour)
	if err := writer.Exec(`INSERT INTO clan_snapshots (clan_id, kind, slot, donations, member_count, members)
		VALUES (?, ?, ?, 0, 0, ?)`, id, models.SnapshotFourHourly, slot.Unix(), []byte{}).Error; err != nil {
		t.Fatalf("the writer's snapshot while a partition is being made: %v", err)
	}
	if err := writer.Commit().Error; err != nil {
		t.Fatal(err)
	}
	if err := <-created; err != nil {
		t.Fatalf("making the partition: %v", err)
	}
}

// waitForLockWait waits, at most 30 s, until a session waits for a lock
// on table (of this test's schema).
func waitForLockWait(t *testing.T, db *store.Store, table string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	conn := storetest.SQL(t, db)
	for {
		var waiting int
		err := conn.Raw(`SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			WHERE NOT l.granted AND c.relname = ? AND c.relnamespace = current_schema()::regnamespace`, table).Scan(&waiting).Error
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nobody waited for a lock on %s", table)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
