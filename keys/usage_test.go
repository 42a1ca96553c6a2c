package keys_test

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func lastUsedOf(t *testing.T, db *store.Store, keyID int64) *time.Time {
	t.Helper()
	var key models.APIKey
	if err := storetest.SQL(t, db).WithContext(context.Background()).Select("last_used_at").Take(&key, keyID).Error; err != nil {
		t.Fatal(err)
	}
	return key.LastUsedAt
}

func TestFlushWritesTheLatestUsesInOneStatement(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		alice, bob, carol := issue(t, service, "1"), issue(t, service, "2"), issue(t, service, "3")
		if err := service.Disable(ctx, "3", "bot", "left"); err != nil {
			t.Fatal(err)
		}

		expectVerify(t, service, alice.Key, nil, "1")
		clock.Advance(2 * time.Second)
		expectVerify(t, service, bob.Key, nil, "2")
		clock.Advance(10 * time.Second) // past the cache TTL: a fresh lookup
		expectVerify(t, service, alice.Key, nil, "1")
		aliceLatest := clock.Now()
		clock.Advance(time.Second) // a cache hit
		expectVerify(t, service, bob.Key, nil, "2")
		bobLatest := clock.Now()
		expectVerify(t, service, carol.Key, models.ErrKeyDisabled, "")

		for _, id := range []int64{alice.KeyID, bob.KeyID} {
			if used := lastUsedOf(t, db, id); used != nil {
				t.Fatalf("key %d last used %v before any flush: Verify must not write", id, used)
			}
		}
		statements := countStatements(t, db)
		if err := service.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if n := statements.Load(); n != 1 {
			t.Errorf("flush ran %d statements, want 1", n)
		}
		tests := []struct {
			name  string
			keyID int64
			want  *time.Time
		}{
			{"alice: latest of two lookups", alice.KeyID, &aliceLatest},
			{"bob: latest use, from the cache", bob.KeyID, &bobLatest},
			{"carol: a refused key is not a use", carol.KeyID, nil},
		}
		for _, tt := range tests {
			got := lastUsedOf(t, db, tt.keyID)
			if (got == nil) != (tt.want == nil) || (got != nil && !got.Equal(*tt.want)) {
				t.Errorf("%s: last used %v, want %v", tt.name, got, tt.want)
			}
		}

		statements.Reset()
		if err := service.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if n := statements.Load(); n != 0 {
			t.Errorf("a flush with nothing new ran %d statements", n)
		}
		info, err := service.Info(ctx, "2")
		if err != nil {
			t.Fatal(err)
		}
		if info.LastUsedAt == nil || !info.LastUsedAt.Equal(bobLatest) {
			t.Errorf("Info last used %v, want %v", info.LastUsedAt, bobLatest)
		}
	})
}

func TestRunFlushesWhenItsContextEnds(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	clock := models.NewManualClock(testStart)
	service, err := keys.NewService(db, keys.Config{Secret: testSecret, Clock: clock, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	issued := issue(t, service, "1")
	expectVerify(t, service, issued.Key, nil, "1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	service.Run(ctx) // returns after the final flush
	if used := lastUsedOf(t, db, issued.KeyID); used == nil || !used.Equal(testStart) {
		t.Fatalf("last used %v after Run ended, want %v", used, testStart)
	}
}
