package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// Migration 18 spells "unknown" the statuses and types stored as the game
// spelled them when they were none Crowns names (its UNKNOWN, say), and
// leaves the named ones as they are.
func TestMigration18SpellsUnnamedTournamentValuesUnknown(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		conn := storetest.SQL(t, db).WithContext(ctx)
		if err := conn.Exec(`DELETE FROM schema_migrations WHERE version = 18`).Error; err != nil {
			t.Fatal(err)
		}
		stored := []struct{ tag, kind, status, wantKind, wantStatus string }{
			{tagOf(1), "UNKNOWN", "UNKNOWN", models.TournamentTypeUnknown, models.TournamentStatusUnknown},
			{tagOf(2), models.TournamentTypeOpen, "CANCELLED", models.TournamentTypeOpen, models.TournamentStatusUnknown},
			{tagOf(3), "INVITE_ONLY", models.TournamentEnded, models.TournamentTypeUnknown, models.TournamentEnded},
			{tagOf(4), models.TournamentTypePasswordProtected, models.TournamentInProgress, models.TournamentTypePasswordProtected, models.TournamentInProgress},
			{tagOf(5), models.TournamentTypeOpen, models.TournamentInPreparation, models.TournamentTypeOpen, models.TournamentInPreparation},
		}
		for _, s := range stored {
			err := conn.Exec(`INSERT INTO tournaments (tag, type, status, name, capacity, max_capacity,
				preparation_duration, duration, create_time, updated_at) VALUES (?, ?, ?, ?, 1, 50, 3600, 7200, ?, ?)`,
				s.tag, s.kind, s.status, "Cup "+s.tag, tournamentEpoch.Unix(), tournamentEpoch.Unix()).Error
			if err != nil {
				t.Fatal(err)
			}
		}
		applied, err := db.Migrate(ctx)
		if err != nil || !slices.Contains(applied, "0018_tournament_unknown_values") {
			t.Fatalf("migrate: applied %v, error %v", applied, err)
		}
		records, err := db.ListTournaments(ctx, nil, models.MaxTournamentListLength)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][2]string{}
		for _, r := range records {
			got[r.Tag] = [2]string{r.Type, r.Status}
		}
		for _, s := range stored {
			if want := [2]string{s.wantKind, s.wantStatus}; got[s.tag] != want {
				t.Errorf("%s stored %s %s: after the migration %v, want %v", s.tag, s.kind, s.status, got[s.tag], want)
			}
		}
	})
}
