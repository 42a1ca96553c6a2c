package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// Migration 6 upgrades a database whose tournaments were stored before
// it: they stay listed, none of them known (nobody can say a client asked
// for them), and a lookup by a client makes one known.
func TestMigration6KeepsEarlierTournamentsUnknown(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		conn := storetest.SQL(t, db).WithContext(ctx)
		// Back to version 5: migration 6 undone.
		for _, stmt := range []string{
			`DROP INDEX tournaments_requested`,
			`ALTER TABLE tournaments DROP COLUMN requested_at`,
			`DELETE FROM schema_migrations WHERE version = 6`,
		} {
			if err := conn.Exec(stmt).Error; err != nil {
				t.Fatalf("%s: %v", stmt, err)
			}
		}
		earlier := testTournament(tagOf(1), models.TournamentTypeOpen, models.TournamentInPreparation, 3, 50)
		err := conn.Exec(`INSERT INTO tournaments (tag, type, status, name, capacity, max_capacity,
			preparation_duration, duration, create_time, updated_at, looked_up_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			earlier.Tag, earlier.Type, earlier.Status, earlier.Name, earlier.Capacity, earlier.MaxCapacity,
			earlier.PreparationDuration, earlier.Duration, earlier.CreatedTime.Unix(), tournamentEpoch.Unix(), tournamentEpoch.Unix()).Error
		if err != nil {
			t.Fatal(err)
		}

		applied, err := db.Migrate(ctx)
		if err != nil || !slices.Contains(applied, "0006_tournament_requests") {
			t.Fatalf("migrate: applied %v, error %v", applied, err)
		}
		if open, known := listTags(t, db, models.TournamentOpen), listTags(t, db, models.TournamentKnown); !slices.Equal(open, []string{earlier.Tag}) || len(known) != 0 {
			t.Fatalf("after the migration: open %v, known %v", open, known)
		}
		if err := db.SaveRequestedTournament(ctx, earlier, tournamentEpoch.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if known := listTags(t, db, models.TournamentKnown); !slices.Equal(known, []string{earlier.Tag}) {
			t.Fatalf("after a lookup: known %v", known)
		}
	})
}
