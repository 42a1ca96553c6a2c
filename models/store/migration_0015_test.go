package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// Migration 15 starts the leak notices' position where the log channel's
// is, on a database that has one (the previous release told owners of
// leaked keys as it posted to the log channel), and leaves a database
// without one to start from the beginning.
func TestMigration15StartsLeakNoticesWhereTheLogChannelIs(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		conn := storetest.SQL(t, db).WithContext(ctx)
		if position, err := db.BotCursorPosition(ctx, "leak-notices"); err != nil || position != 0 {
			t.Fatalf("a fresh database: leak notices at %d (%v), want 0", position, err)
		}
		// Back to version 14, with the log channel posted up to event 42.
		if err := conn.Exec(`DELETE FROM schema_migrations WHERE version = 15`).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.SaveBotCursorPosition(ctx, "audit-log", 42, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		applied, err := db.Migrate(ctx)
		if err != nil || !slices.Contains(applied, "0015_leak_notice_cursor") {
			t.Fatalf("migrate: applied %v, error %v", applied, err)
		}
		if position, err := db.BotCursorPosition(ctx, "leak-notices"); err != nil || position != 42 {
			t.Fatalf("after the migration: leak notices at %d (%v), want the log channel's 42", position, err)
		}
	})
}
