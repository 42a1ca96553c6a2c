package store

import (
	"context"
	"testing"

	"github.com/crownsdev/crowns/models"
)

// TestQueryCountCountsEveryStatement runs inside the package: it counts
// statements sent through the store's own handle (on SQLite; the counting
// callbacks are the same on both engines).
func TestQueryCountCountsEveryStatement(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, DatabaseConfig{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	gdb := db.session(ctx)
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
}
