package store_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestMigrateIsRecordedAndIdempotent(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			db, err := store.Open(ctx, storetest.Config(t, engine))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			first, err := db.Migrate(ctx)
			if err != nil {
				t.Fatalf("first migrate: %v", err)
			}
			if len(first) == 0 {
				t.Fatal("first migrate applied nothing")
			}
			second, err := db.Migrate(ctx)
			if err != nil {
				t.Fatalf("second migrate: %v", err)
			}
			if len(second) != 0 {
				t.Fatalf("second migrate applied %v again", second)
			}
			version, err := db.SchemaVersion(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if version < 1 {
				t.Fatalf("schema version = %d, want >= 1", version)
			}
		})
	}
}

func TestConcurrentMigrationsApplyEachVersionOnce(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			cfg := storetest.Config(t, engine)
			const replicas = 3
			results := make([][]string, replicas)
			errs := make([]error, replicas)
			var wg sync.WaitGroup
			for i := range replicas {
				wg.Add(1)
				go func() {
					defer wg.Done()
					db, err := store.Open(ctx, cfg)
					if err != nil {
						errs[i] = err
						return
					}
					defer db.Close()
					results[i], errs[i] = db.Migrate(ctx)
				}()
			}
			wg.Wait()
			total := 0
			for i := range replicas {
				if errs[i] != nil {
					t.Fatalf("replica %d: %v", i, errs[i])
				}
				total += len(results[i])
			}
			db, err := store.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var rows int64
			if err := storetest.SQL(t, db).WithContext(ctx).Table("schema_migrations").Count(&rows).Error; err != nil {
				t.Fatal(err)
			}
			if int64(total) != rows {
				t.Fatalf("replicas applied %d migrations in all, table records %d", total, rows)
			}
		})
	}
}

// TestMigrateRefusesNewerSchema: a database migrated by a newer release is
// refused, naming the version it is at: its newest migration, not the
// first this binary does not know.
func TestMigrateRefusesNewerSchema(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		for version, name := range map[int]string{999998: "next_release", 999999: "from_the_future"} {
			if err := storetest.SQL(t, db).WithContext(ctx).Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, CURRENT_TIMESTAMP)`, version, name).Error; err != nil {
				t.Fatal(err)
			}
		}
		_, err := db.Migrate(ctx)
		if err == nil {
			t.Fatal("Migrate accepted a schema newer than the binary")
		}
		if !strings.Contains(err.Error(), "database schema is at version 999999 (from_the_future), newer than this binary knows") {
			t.Fatalf("Migrate refused with %q, want it to name the schema's version, 999999 (from_the_future)", err)
		}
	})
}

// TestAFailedMigrationFailsMigrate: a migration the database refuses (a
// table in its way) fails Migrate, naming it, and is not recorded
// applied: the process does not start on half a schema, and the next
// Migrate applies it.
func TestAFailedMigrationFailsMigrate(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			db, err := store.Open(ctx, storetest.Config(t, engine))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := storetest.SQL(t, db).WithContext(ctx).Exec(`CREATE TABLE developers (id INTEGER)`).Error; err != nil {
				t.Fatal(err)
			}
			applied, err := db.Migrate(ctx)
			if err == nil || !strings.Contains(err.Error(), "migration 0001") {
				t.Fatalf("Migrate with a table in the way of 0001 = %v, %v; want the migration's error", applied, err)
			}
			if err := storetest.SQL(t, db).WithContext(ctx).Exec(`DROP TABLE developers`).Error; err != nil {
				t.Fatal(err)
			}
			applied, err = db.Migrate(ctx)
			if err != nil || len(applied) == 0 || applied[0] != "0001_developer_keys" {
				t.Fatalf("Migrate once the table is out of the way = %v, %v; want every migration from 0001 applied", applied, err)
			}
		})
	}
}
