package models_test

import (
	"context"
	"testing"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/dbtest"
)

func TestQueryCountCountsEveryStatement(t *testing.T) {
	dbtest.EachEngine(t, func(t *testing.T, store *models.Store) {
		ctx := context.Background()
		db := store.DB(ctx)
		steps := []struct {
			name string
			run  func() error
		}{
			{"raw scan", func() error { var n int; return db.Raw(`SELECT 1`).Scan(&n).Error }},
			{"exec", func() error { return db.Exec(`UPDATE developers SET display_name = display_name WHERE id = 0`).Error }},
			{"find", func() error { var devs []models.Developer; return db.Find(&devs).Error }},
			{"create", func() error {
				return db.Create(&models.Developer{DiscordUserID: "1", DisplayName: "one"}).Error
			}},
			{"update", func() error {
				return db.Model(&models.Developer{}).Where("discord_user_id = ?", "1").Update("display_name", "uno").Error
			}},
			{"delete", func() error { return db.Where("discord_user_id = ?", "1").Delete(&models.Developer{}).Error }},
		}
		for _, step := range steps {
			before := store.QueryCount()
			if err := step.run(); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			if got := store.QueryCount() - before; got != 1 {
				t.Errorf("%s counted %d statements, want 1", step.name, got)
			}
		}
		before := store.QueryCount()
		if err := store.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if got := store.QueryCount() - before; got != 0 {
			t.Errorf("a ping counted %d statements, want 0", got)
		}
	})
}

func TestBackgroundStatementsAreCountedApart(t *testing.T) {
	store := dbtest.Open(t, models.DialectSQLite)
	ctx := context.Background()
	var n int
	all, background := store.QueryCount(), store.BackgroundQueryCount()
	if err := store.DB(models.AsBackground(ctx)).Raw(`SELECT 1`).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	if err := store.DB(ctx).Raw(`SELECT 1`).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	if got, gotBackground := store.QueryCount()-all, store.BackgroundQueryCount()-background; got != 2 || gotBackground != 1 {
		t.Fatalf("counted %d statements, %d of them background; want 2 and 1", got, gotBackground)
	}
}
