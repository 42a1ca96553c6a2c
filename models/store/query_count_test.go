package store_test

import (
	"context"
	"testing"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestQueryCountCountsEveryStatement(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		gdb := db.DB(ctx)
		steps := []struct {
			name string
			run  func() error
		}{
			{"raw scan", func() error { var n int; return gdb.Raw(`SELECT 1`).Scan(&n).Error }},
			{"exec", func() error { return gdb.Exec(`UPDATE developers SET display_name = display_name WHERE id = 0`).Error }},
			{"find", func() error { var devs []models.Developer; return gdb.Find(&devs).Error }},
			{"create", func() error {
				return gdb.Create(&models.Developer{DiscordUserID: "1", DisplayName: "one"}).Error
			}},
			{"update", func() error {
				return gdb.Model(&models.Developer{}).Where("discord_user_id = ?", "1").Update("display_name", "uno").Error
			}},
			{"delete", func() error { return gdb.Where("discord_user_id = ?", "1").Delete(&models.Developer{}).Error }},
		}
		for _, step := range steps {
			before := db.QueryCount()
			if err := step.run(); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			if got := db.QueryCount() - before; got != 1 {
				t.Errorf("%s counted %d statements, want 1", step.name, got)
			}
		}
		before := db.QueryCount()
		if err := db.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if got := db.QueryCount() - before; got != 0 {
			t.Errorf("a ping counted %d statements, want 0", got)
		}
	})
}

func TestBackgroundStatementsAreCountedApart(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	ctx := context.Background()
	var n int
	all, background := db.QueryCount(), db.BackgroundQueryCount()
	if err := db.DB(store.AsBackground(ctx)).Raw(`SELECT 1`).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.DB(ctx).Raw(`SELECT 1`).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	if got, gotBackground := db.QueryCount()-all, db.BackgroundQueryCount()-background; got != 2 || gotBackground != 1 {
		t.Fatalf("counted %d statements, %d of them background; want 2 and 1", got, gotBackground)
	}
}
