package models_test

import (
	"context"
	"sync"
	"testing"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/dbtest"
)

func TestMigrateIsRecordedAndIdempotent(t *testing.T) {
	for _, engine := range dbtest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			store, err := models.Open(ctx, dbtest.Config(t, engine))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			first, err := store.Migrate(ctx)
			if err != nil {
				t.Fatalf("first migrate: %v", err)
			}
			if len(first) == 0 {
				t.Fatal("first migrate applied nothing")
			}
			second, err := store.Migrate(ctx)
			if err != nil {
				t.Fatalf("second migrate: %v", err)
			}
			if len(second) != 0 {
				t.Fatalf("second migrate applied %v again", second)
			}
			version, err := store.SchemaVersion(ctx)
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
	for _, engine := range dbtest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			ctx := context.Background()
			cfg := dbtest.Config(t, engine)
			const replicas = 3
			results := make([][]string, replicas)
			errs := make([]error, replicas)
			var wg sync.WaitGroup
			for i := range replicas {
				wg.Add(1)
				go func() {
					defer wg.Done()
					store, err := models.Open(ctx, cfg)
					if err != nil {
						errs[i] = err
						return
					}
					defer store.Close()
					results[i], errs[i] = store.Migrate(ctx)
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
			store, err := models.Open(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			var rows int64
			if err := store.DB(ctx).Table("schema_migrations").Count(&rows).Error; err != nil {
				t.Fatal(err)
			}
			if int64(total) != rows {
				t.Fatalf("replicas applied %d migrations in all, table records %d", total, rows)
			}
		})
	}
}

func TestMigrateRefusesNewerSchema(t *testing.T) {
	dbtest.EachEngine(t, func(t *testing.T, store *models.Store) {
		ctx := context.Background()
		if err := store.DB(ctx).Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, CURRENT_TIMESTAMP)`, 999999, "from_the_future").Error; err != nil {
			t.Fatal(err)
		}
		if _, err := store.Migrate(ctx); err == nil {
			t.Fatal("Migrate accepted a schema newer than the binary")
		}
	})
}
