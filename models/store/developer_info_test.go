package store_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestDeveloperInfoSummarisesKeys(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		_, activeKeys := insertDeveloperWithKeys(t, db, "30", start, models.KeyReplaced, models.KeyRevoked, models.KeyActive)
		insertDeveloperWithKeys(t, db, "10", start, models.KeyDisabled)
		insertDeveloperWithKeys(t, db, "20", start)
		blacklisted, _ := insertDeveloperWithKeys(t, db, "100", start, models.KeyBlacklisted)
		blacklistedAt := start.Add(time.Hour)
		if err := storetest.SQL(t, db).WithContext(ctx).Model(&blacklisted).Updates(map[string]any{
			"blacklisted": true, "blacklist_reason": "scraping", "blacklisted_by": "cli", "blacklisted_at": blacklistedAt,
		}).Error; err != nil {
			t.Fatal(err)
		}
		used := start.Add(2 * time.Hour)
		if err := db.MarkKeysUsed(ctx, map[int64]time.Time{activeKeys[0]: used}); err != nil {
			t.Fatal(err)
		}

		info, err := db.DeveloperInfo(ctx, "30")
		if err != nil {
			t.Fatal(err)
		}
		if info.State != models.DeveloperActive || info.CurrentKeyID != activeKeys[2] || info.DisplayName != "dev 30" {
			t.Errorf("info = %+v, want active with current key %d", info, activeKeys[2])
		}
		if info.KeyCreatedAt == nil || !info.KeyCreatedAt.Equal(start.Add(2*time.Minute)) {
			t.Errorf("key created %v, want the active key's creation", info.KeyCreatedAt)
		}
		if info.LastUsedAt == nil || !info.LastUsedAt.Equal(used) {
			t.Errorf("last used %v, want %v (from the replaced key)", info.LastUsedAt, used)
		}
		wantCounts := map[models.KeyState]int{models.KeyReplaced: 1, models.KeyRevoked: 1, models.KeyActive: 1}
		if !maps.Equal(info.KeyCounts, wantCounts) {
			t.Errorf("key counts %v, want %v", info.KeyCounts, wantCounts)
		}

		all, err := db.DeveloperInfos(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, info := range all {
			got = append(got, info.DiscordUserID+"="+string(info.State))
		}
		want := []string{"10=disabled", "20=no key", "30=active", "100=blacklisted"}
		if !slices.Equal(got, want) {
			t.Errorf("developer states %v, want %v", got, want)
		}
		black := all[3]
		if black.BlacklistReason != "scraping" || black.BlacklistedBy != "cli" || black.BlacklistedAt == nil || !black.BlacklistedAt.Equal(blacklistedAt) {
			t.Errorf("blacklist info %+v", black)
		}

		if _, err := db.DeveloperInfo(ctx, "99"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("unknown developer: err = %v, want ErrNotFound", err)
		}
		active, err := db.DevelopersWithActiveKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(active, []string{"30"}) {
			t.Errorf("developers with active keys %v, want [30]", active)
		}
	})
}

func TestKeyEventsAfterReadsInIDOrder(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		developer, _ := insertDeveloperWithKeys(t, db, "5", at)
		actions := []models.KeyAction{models.KeyActionIssued, models.KeyActionDisabled, models.KeyActionReenabled, models.KeyActionRevoked}
		conn := storetest.SQL(t, db).WithContext(ctx)
		for _, action := range actions {
			event := models.KeyEvent{DeveloperID: developer.ID, DiscordUserID: "5", Action: action, Actor: "cli", CreatedAt: at}
			if err := conn.Create(&event).Error; err != nil {
				t.Fatal(err)
			}
		}
		first, err := db.KeyEventsAfter(ctx, 0, 3)
		if err != nil {
			t.Fatal(err)
		}
		rest, err := db.KeyEventsAfter(ctx, first[len(first)-1].ID, 3)
		if err != nil {
			t.Fatal(err)
		}
		var got []models.KeyAction
		for _, event := range append(first, rest...) {
			got = append(got, event.Action)
		}
		if len(first) != 3 || !slices.Equal(got, actions) {
			t.Errorf("read %d then %d events: %v, want %v", len(first), len(rest), got, actions)
		}
	})
}
