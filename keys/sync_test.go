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

// syncService syncs service, failing the test on an error.
func syncService(t *testing.T, service *keys.Service) {
	t.Helper()
	if err := service.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// expectStatements checks that verifying raw ran want statements.
func expectStatements(t *testing.T, db *store.Store, want int64, what string, verify func()) {
	t.Helper()
	before := db.QueryCount()
	verify()
	if got := db.QueryCount() - before; got != want {
		t.Errorf("%s: %d statements, want %d", what, got, want)
	}
}

func TestSyncedVerdictsOutliveTheTTL(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		issued := issue(t, service, "100")
		syncService(t, service)
		expectStatements(t, db, 1, "first check", func() { expectVerify(t, service, issued.Key, nil, "100") })
		for range 60 { // ten minutes of syncs every 10 s, with requests between
			clock.Advance(testTTL / 2)
			expectStatements(t, db, 0, "check between syncs", func() { expectVerify(t, service, issued.Key, nil, "100") })
			clock.Advance(testTTL / 2)
			syncService(t, service)
		}
		expectStatements(t, db, 0, "check ten minutes on", func() { expectVerify(t, service, issued.Key, nil, "100") })
		clock.Advance(keys.SyncedCacheTTL)
		syncService(t, service)
		expectStatements(t, db, 1, "check after SyncedCacheTTL", func() { expectVerify(t, service, issued.Key, nil, "100") })
	})
}

func TestChangesByAnotherProcessAreSeenAtTheNextSync(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		api, bot := newService(t, db, clock), newService(t, db, clock)
		issued := issue(t, bot, "100")
		other := issue(t, bot, "200")
		expectVerify(t, api, issued.Key, nil, "100")
		expectVerify(t, api, other.Key, nil, "200")
		if err := bot.Disable(ctx, "100", "bot", "left"); err != nil {
			t.Fatal(err)
		}
		// The first sync starts at the end of the outbox, after the change:
		// it drops what was cached before it.
		syncService(t, api)
		expectVerify(t, api, issued.Key, models.ErrKeyDisabled, "")

		expectVerify(t, api, other.Key, nil, "200")
		if err := bot.Revoke(ctx, "200", "cli", ""); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Second)
		expectVerify(t, api, other.Key, nil, "200") // until the next sync
		syncService(t, api)
		expectVerify(t, api, other.Key, models.ErrUnknownKey, "")

		if _, err := bot.IssueOrRemind(ctx, keys.Developer{DiscordUserID: "100"}, "bot"); err != nil {
			t.Fatal(err)
		}
		syncService(t, api)
		expectVerify(t, api, issued.Key, nil, "100")
		if err := bot.Blacklist(ctx, "100", "abuse", "moderator"); err != nil {
			t.Fatal(err)
		}
		syncService(t, api)
		expectVerify(t, api, issued.Key, models.ErrKeyBlacklisted, "")
	})
}

func TestAStalledFeedFallsBackToTheTTL(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	ctx := context.Background()
	clock := models.NewManualClock(testStart)
	api, bot := newService(t, db, clock), newService(t, db, clock)
	issued := issue(t, bot, "100")
	syncService(t, api)
	expectVerify(t, api, issued.Key, nil, "100")
	clock.Advance(3 * time.Second)
	syncService(t, api) // the last sync that succeeds
	if err := bot.Revoke(ctx, "100", "cli", ""); err != nil {
		t.Fatal(err)
	}
	// The verdict, older than the TTL, is trusted while the last sync
	// began less than the TTL ago, and no longer.
	clock.Advance(testTTL - time.Nanosecond)
	expectVerify(t, api, issued.Key, nil, "100")
	clock.Advance(time.Nanosecond)
	expectVerify(t, api, issued.Key, models.ErrUnknownKey, "")
}

func TestSyncSkipsTheServicesOwnChanges(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		syncService(t, service)
		owners := []string{"100", "200", "300"}
		issued := make(map[string]string)
		for _, owner := range owners {
			issued[owner] = issue(t, service, owner).Key
			expectVerify(t, service, issued[owner], nil, owner)
		}
		// One statement reads the outbox; the keys it names were issued
		// here, their verdicts are current and stay cached.
		expectStatements(t, db, 1, "sync of this service's own events", func() { syncService(t, service) })
		for _, owner := range owners {
			expectStatements(t, db, 0, "check after the sync", func() { expectVerify(t, service, issued[owner], nil, owner) })
		}
	})
}

// TestASyncReadsEveryEventSinceTheLast: more events than one read of the
// feed takes (a busy moment of another process, a long pause) are all
// read by one Sync, so that a change among the last of them is seen at
// once rather than trusted past it.
func TestASyncReadsEveryEventSinceTheLast(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	ctx := context.Background()
	clock := models.NewManualClock(testStart)
	api, bot := newService(t, db, clock), newService(t, db, clock)
	issued := issue(t, bot, "100")
	busy := issue(t, bot, "200")
	syncService(t, api)
	expectVerify(t, api, issued.Key, nil, "100")
	// Another process records a thousand events of another developer,
	// then revokes the key of the first.
	err := db.KeyTransition(ctx, func(tx models.KeyTransaction) error {
		developer, err := tx.Developer("200")
		if err != nil {
			return err
		}
		for range 1000 {
			event := models.KeyEvent{DeveloperID: developer.ID, DiscordUserID: "200", KeyID: &busy.KeyID,
				Action: models.KeyActionReenabled, Actor: "bot", CreatedAt: clock.Now()}
			if err := tx.CreateKeyEvent(&event); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := bot.Revoke(ctx, "100", "cli", ""); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	syncService(t, api)
	expectVerify(t, api, issued.Key, models.ErrUnknownKey, "")
}
