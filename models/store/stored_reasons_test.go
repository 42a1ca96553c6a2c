package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// reasonRows writes one developer per text, with a key and an event, the
// text in each of the three reason columns; it returns the developers' ids
// by text (a key's and its event's id are the developer's: one of each
// per developer, written in the same order).
func reasonRows(t *testing.T, conn *gorm.DB, at time.Time, texts ...string) map[string]int64 {
	t.Helper()
	ids := map[string]int64{}
	for i, text := range texts {
		developer := models.Developer{DiscordUserID: string(rune('1'+i)) + "0", DisplayName: "dev " + text,
			Blacklisted: true, BlacklistReason: text, BlacklistedBy: "cli", BlacklistedAt: &at, CreatedAt: at, UpdatedAt: at}
		if err := conn.Create(&developer).Error; err != nil {
			t.Fatal(err)
		}
		key := models.APIKey{DeveloperID: developer.ID, Digest: []byte("digest " + text), Sealed: []byte("sealed"),
			State: models.KeyBlacklisted, StateReason: text, CreatedAt: at, StateChangedAt: at}
		if err := conn.Create(&key).Error; err != nil {
			t.Fatal(err)
		}
		event := models.KeyEvent{DeveloperID: developer.ID, DiscordUserID: developer.DiscordUserID, KeyID: &key.ID,
			Action: models.KeyActionBlacklisted, Actor: "cli", Reason: text, CreatedAt: at}
		if err := conn.Create(&event).Error; err != nil {
			t.Fatal(err)
		}
		if key.ID != developer.ID || event.ID != developer.ID {
			t.Fatalf("ids developer %d, key %d, event %d: want one id for the three", developer.ID, key.ID, event.ID)
		}
		ids[text] = developer.ID
	}
	return ids
}

// TestStoredReasonsContainingFindsTheTextAsIs: every reason column is
// searched for the text as given: LIKE's wildcards in it are not
// wildcards, and another case of its letters is not it (SQLite's LIKE
// ignores case).
func TestStoredReasonsContainingFindsTheTextAsIs(t *testing.T) {
	texts := []string{"leaked: crw_abc", "crw_", "CRW_abc", "crwXabc", "no key", "100% sure", "1000 sure", `a\b`, "ab"}
	tests := []struct {
		text string
		want []string
	}{
		{"crw_", []string{"leaked: crw_abc", "crw_"}},
		{"100%", []string{"100% sure"}},
		{`\`, []string{`a\b`}},
		{"nothing like it", nil},
	}
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		ids := reasonRows(t, storetest.SQL(t, db).WithContext(ctx), time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), texts...)
		for _, tt := range tests {
			got, err := db.StoredReasonsContaining(ctx, tt.text)
			if err != nil {
				t.Fatal(err)
			}
			var want []models.StoredReason
			for _, column := range models.ReasonColumns() {
				for _, text := range tt.want {
					want = append(want, models.StoredReason{Column: column, ID: ids[text], Text: text})
				}
			}
			slices.SortStableFunc(want, func(a, b models.StoredReason) int {
				if a.Column != b.Column {
					return slices.Index(models.ReasonColumns(), a.Column) - slices.Index(models.ReasonColumns(), b.Column)
				}
				return int(a.ID - b.ID)
			})
			if !slices.Equal(got, want) {
				t.Errorf("reasons containing %q:\n got %v\nwant %v", tt.text, got, want)
			}
		}
	})
}

// TestRewriteStoredReasonChangesOnlyThatReason: a rewrite changes the one
// reason it names, while it still reads as it did, and nothing else of
// its row or of the others.
func TestRewriteStoredReasonChangesOnlyThatReason(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		conn := storetest.SQL(t, db).WithContext(ctx)
		at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		ids := reasonRows(t, conn, at, "first", "second")
		for _, column := range models.ReasonColumns() {
			reason := models.StoredReason{Column: column, ID: ids["first"], Text: "first"}
			done, err := db.RewriteStoredReason(ctx, reason, "first, rewritten")
			if err != nil || !done {
				t.Fatalf("%s: rewrite = %v, %v; want done", column, done, err)
			}
			// Read as it was before: another process rewrote it first.
			if done, err := db.RewriteStoredReason(ctx, reason, "first, rewritten again"); err != nil || done {
				t.Fatalf("%s: a rewrite of the text read before = %v, %v; want not done", column, done, err)
			}
			if done, err := db.RewriteStoredReason(ctx, models.StoredReason{Column: column, ID: 999, Text: "first"}, "x"); err != nil || done {
				t.Fatalf("%s: a rewrite of a row that is not there = %v, %v; want not done", column, done, err)
			}
		}

		var developers []models.Developer
		var apiKeys []models.APIKey
		var events []models.KeyEvent
		for _, rows := range []any{&developers, &apiKeys, &events} {
			if err := conn.Order("id").Find(rows).Error; err != nil {
				t.Fatal(err)
			}
		}
		for i, want := range []string{"first, rewritten", "second"} {
			dev, key, event := developers[i], apiKeys[i], events[i]
			if dev.BlacklistReason != want || key.StateReason != want || event.Reason != want {
				t.Errorf("row %d: reasons %q, %q, %q; want %q", i, dev.BlacklistReason, key.StateReason, event.Reason, want)
			}
			if !dev.UpdatedAt.Equal(at) || !key.StateChangedAt.Equal(at) || dev.BlacklistedBy != "cli" || event.Actor != "cli" ||
				key.State != models.KeyBlacklisted || event.Action != models.KeyActionBlacklisted {
				t.Errorf("row %d: more than the reason changed: %+v %+v %+v", i, dev, key, event)
			}
		}
	})
}
