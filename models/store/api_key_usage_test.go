package store_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"

	"gorm.io/gorm"
)

// insertDeveloperWithKeys stores a developer and one key per state given,
// and returns the key ids in the same order.
func insertDeveloperWithKeys(t *testing.T, db *store.Store, discordUserID string, at time.Time, states ...models.KeyState) (models.Developer, []int64) {
	t.Helper()
	ctx := context.Background()
	conn := storetest.SQL(t, db).WithContext(ctx)
	developer := models.Developer{DiscordUserID: discordUserID, DisplayName: "dev " + discordUserID, CreatedAt: at, UpdatedAt: at}
	if err := conn.Create(&developer).Error; err != nil {
		t.Fatal(err)
	}
	if len(states) == 0 {
		return developer, nil
	}
	// One statement for all the keys: a row at a time, the 450 keys of a
	// batch test took most of its time on SQLite's commits.
	keys := make([]models.APIKey, len(states))
	for i, state := range states {
		keys[i] = models.APIKey{
			DeveloperID:    developer.ID,
			Digest:         []byte(fmt.Sprintf("digest-%s-%d", discordUserID, i)),
			Sealed:         []byte("sealed"),
			State:          state,
			CreatedAt:      at.Add(time.Duration(i) * time.Minute),
			StateChangedAt: at,
		}
	}
	if err := conn.Create(&keys).Error; err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(keys))
	for i, key := range keys {
		ids[i] = key.ID
	}
	return developer, ids
}

func lastUsed(t *testing.T, conn *gorm.DB, keyID int64) *time.Time {
	t.Helper()
	var key models.APIKey
	if err := conn.Take(&key, keyID).Error; err != nil {
		t.Fatal(err)
	}
	return key.LastUsedAt
}

func TestMarkKeysUsedWritesLatestUseAndNeverMovesBack(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		conn := storetest.SQL(t, db).WithContext(ctx)
		start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
		states := make([]models.KeyState, 0, 450)
		for range 450 {
			states = append(states, models.KeyReplaced)
		}
		_, many := insertDeveloperWithKeys(t, db, "1", start, states...)
		_, single := insertDeveloperWithKeys(t, db, "2", start, models.KeyActive)
		untouched := single[0]

		uses := make(map[int64]time.Time, len(many))
		for i, id := range many {
			uses[id] = start.Add(time.Duration(i) * time.Second)
		}
		if err := db.MarkKeysUsed(ctx, uses); err != nil {
			t.Fatalf("mark %d keys used: %v", len(uses), err)
		}
		var marked []models.APIKey
		if err := conn.Where("id IN ?", many).Find(&marked).Error; err != nil {
			t.Fatal(err)
		}
		if len(marked) != len(many) {
			t.Fatalf("read %d of the %d keys marked", len(marked), len(many))
		}
		for _, key := range marked {
			if got := key.LastUsedAt; got == nil || !got.Equal(uses[key.ID]) {
				t.Fatalf("key %d last used %v, want %v", key.ID, got, uses[key.ID])
			}
		}
		if got := lastUsed(t, conn, untouched); got != nil {
			t.Fatalf("key outside the batch got last used %v", got)
		}

		tests := []struct {
			name string
			at   time.Time
			want time.Time
		}{
			{"an older use keeps the stored one", start.Add(-time.Hour), start},
			{"a sub-second later use moves it", start.Add(1500 * time.Millisecond), start.Add(1500 * time.Millisecond)},
			{"a later use moves it", start.Add(48 * time.Hour), start.Add(48 * time.Hour)},
			{"a sub-second older use keeps it", start.Add(48*time.Hour - time.Millisecond), start.Add(48 * time.Hour)},
		}
		for _, tt := range tests {
			if err := db.MarkKeysUsed(ctx, map[int64]time.Time{many[0]: tt.at}); err != nil {
				t.Fatal(err)
			}
			if got := lastUsed(t, conn, many[0]); got == nil || !got.Equal(tt.want) {
				t.Errorf("%s: last used %v, want %v", tt.name, got, tt.want)
			}
		}
		if err := db.MarkKeysUsed(ctx, nil); err != nil {
			t.Fatalf("mark no keys used: %v", err)
		}
	})
}

// TestAddKeyUsageAddsAllOrNothing: counts spread over several statements
// are added in one transaction; when one statement fails (a key that does
// not exist) none is added and the batch's id is not kept, so that the
// caller, which tries the batch again, has it written then.
func TestAddKeyUsageAddsAllOrNothing(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
		_, ids := insertDeveloperWithKeys(t, db, "71", start, models.KeyActive)
		counts := map[models.KeyUsageCell]models.KeyUsageCount{}
		for h := range 450 { // more statements than one
			counts[models.KeyUsageCell{KeyID: ids[0], Hour: start.Add(time.Duration(h) * time.Hour), Route: "/clan/search"}] = models.KeyUsageCount{Requests: 1}
		}
		// Sorted last: the last statement fails.
		withMissingKey := maps.Clone(counts)
		withMissingKey[models.KeyUsageCell{KeyID: ids[0] + 1000, Hour: start, Route: "/clan/search"}] = models.KeyUsageCount{Requests: 1}
		if err := db.AddKeyUsage(ctx, models.KeyUsageBatch{ID: "flush-1", At: start, Counts: withMissingKey}); err == nil {
			t.Fatal("usage of a key that does not exist was added")
		}
		report, err := db.KeyUsageReport(ctx, ids[0], start)
		if err != nil {
			t.Fatal(err)
		}
		if got := report.Total().Requests; got != 0 {
			t.Fatalf("a failed flush added %d requests, want none", got)
		}
		if err := db.AddKeyUsage(ctx, models.KeyUsageBatch{ID: "flush-1", At: start, Counts: counts}); err != nil {
			t.Fatal(err)
		}
		if report, err = db.KeyUsageReport(ctx, ids[0], start); err != nil || report.Total().Requests != 450 {
			t.Fatalf("after the retry: %d requests (%v), want 450", report.Total().Requests, err)
		}
	})
}

// TestAddKeyUsageAddsABatchOnce: a batch written already (its caller
// heard a failure: the connection cut after the commit) adds nothing when
// tried again, and the call succeeds; another batch of the same counts
// adds them. Batch ids first tried before a time are deleted, and their
// count returned.
func TestAddKeyUsageAddsABatchOnce(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
		_, ids := insertDeveloperWithKeys(t, db, "72", start, models.KeyActive)
		counts := map[models.KeyUsageCell]models.KeyUsageCount{
			{KeyID: ids[0], Hour: start, Route: "/clan/search"}: {Requests: 4, RateLimited: 1},
		}
		for _, batch := range []models.KeyUsageBatch{
			{ID: "old", At: start, Counts: counts},
			{ID: "old", At: start, Counts: counts},
			{ID: "new", At: start.Add(time.Hour), Counts: counts},
		} {
			if err := db.AddKeyUsage(ctx, batch); err != nil {
				t.Fatalf("add batch %s: %v", batch.ID, err)
			}
		}
		report, err := db.KeyUsageReport(ctx, ids[0], start)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := report.Total(), (models.KeyUsageCount{Requests: 8, RateLimited: 2}); got != want {
			t.Fatalf("stored %+v, want %+v: each batch once", got, want)
		}
		if err := db.AddKeyUsage(ctx, models.KeyUsageBatch{At: start, Counts: counts}); !errors.Is(err, models.ErrInvalid) {
			t.Errorf("a batch without an id: %v, want ErrInvalid", err)
		}
		deleted, err := db.DeleteKeyUsageBatchesBefore(ctx, start.Add(time.Hour))
		if err != nil || deleted != 1 {
			t.Fatalf("deleted %d batch ids (%v), want 1: the old one", deleted, err)
		}
		var left []string
		if err := storetest.SQL(t, db).Raw(`SELECT id FROM key_usage_batches`).Scan(&left).Error; err != nil {
			t.Fatal(err)
		}
		if len(left) != 1 || left[0] != "new" {
			t.Errorf("batch ids kept %v, want [new]", left)
		}
	})
}

// TestKeyUsageWindowsSumsRecentAndBaselinePerKey: one row a key used in
// the recent hours, its recent and baseline hours summed apart over every
// route, hours before the baseline left out, keys not used recently left
// out, and so are keys no longer in use (revoked, or their owner
// blacklisted): nothing left for a moderator to act on.
func TestKeyUsageWindowsSumsRecentAndBaselinePerKey(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		at := time.Date(2025, 3, 8, 12, 30, 0, 0, time.UTC)
		_, active := insertDeveloperWithKeys(t, db, "100", at, models.KeyActive)
		_, quiet := insertDeveloperWithKeys(t, db, "200", at, models.KeyActive)
		_, revoked := insertDeveloperWithKeys(t, db, "300", at, models.KeyRevoked)
		banned, bannedKeys := insertDeveloperWithKeys(t, db, "400", at, models.KeyActive)
		if err := storetest.SQL(t, db).Model(&banned).Update("blacklisted", true).Error; err != nil {
			t.Fatal(err)
		}
		recentFrom := at.Truncate(time.Hour).Add(-time.Hour)
		since := recentFrom.Add(-7 * 24 * time.Hour)
		slot := func(keyID int64, hour time.Time, route string) models.KeyUsageCell {
			return models.KeyUsageCell{KeyID: keyID, Hour: hour, Route: route}
		}
		counts := map[models.KeyUsageCell]models.KeyUsageCount{
			slot(active[0], at, "/clan/search"):                                   {Requests: 10, RateLimited: 4},
			slot(active[0], at, "/player/:tag/battles"):                           {Requests: 5, ClientErrors: 1},
			slot(active[0], recentFrom, "/clan/search"):                           {Requests: 20, ServerErrors: 2},
			slot(active[0], recentFrom.Add(-time.Hour), "/clan/search"):           {Requests: 7, RateLimited: 1},
			slot(active[0], since, "/clan/search"):                                {Requests: 3},
			slot(active[0], since.Add(-time.Hour), "/clan/search"):                {Requests: 1000},
			slot(quiet[0], recentFrom.Add(-2*time.Hour), "/clan/search"):          {Requests: 50},
			slot(quiet[0], recentFrom.Add(-24*time.Hour), "/player/:tag/battles"): {Requests: 50},
			slot(revoked[0], at, "/clan/search"):                                  {Requests: 5000},
			slot(bannedKeys[0], at, "/clan/search"):                               {Requests: 5000},
		}
		if err := db.AddKeyUsage(ctx, models.KeyUsageBatch{ID: "flush-1", At: at, Counts: counts}); err != nil {
			t.Fatal(err)
		}
		got, err := db.KeyUsageWindows(ctx, since, recentFrom)
		if err != nil {
			t.Fatal(err)
		}
		want := []models.KeyUsageWindows{{
			KeyID: active[0], DiscordUserID: "100", KeyCreatedAt: at,
			Recent:   models.KeyUsageCount{Requests: 35, RateLimited: 4, ClientErrors: 1, ServerErrors: 2},
			Baseline: models.KeyUsageCount{Requests: 10, RateLimited: 1},
		}}
		if len(got) != len(want) || got[0] != want[0] {
			t.Fatalf("windows %+v, want %+v", got, want)
		}
	})
}
