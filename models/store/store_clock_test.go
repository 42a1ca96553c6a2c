package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestStoreStampsWithItsClock: what the store stamps of its own accord
// (the migrations it applies, the clan-change outbox) reads its configured
// clock, not the system's.
func TestStoreStampsWithItsClock(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			at := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
			cfg := storetest.Config(t, engine)
			cfg.Clock = models.NewManualClock(at)
			db, err := store.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = db.Close() }()
			if _, err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			var first store.SchemaMigration
			if err := storetest.SQL(t, db).Order("version").Take(&first).Error; err != nil {
				t.Fatal(err)
			}
			if !first.AppliedAt.Equal(at) {
				t.Errorf("migrations applied at %v, want the store's clock %v", first.AppliedAt, at)
			}
			// A tracked clan's change: on SQLite a row of the outbox,
			// stamped by the same clock.
			trackFixture(t, db, "2PP", at)
			if engine == store.DialectSQLite {
				var changedAt int64
				if err := storetest.SQL(t, db).Raw(`SELECT MAX(changed_at) FROM clan_changes`).Row().Scan(&changedAt); err != nil {
					t.Fatal(err)
				}
				if changedAt != at.Unix() {
					t.Errorf("clan change stamped %v, want the store's clock %v", time.Unix(changedAt, 0).UTC(), at)
				}
			}
		})
	}
}
