package keys_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestVerifyAnswersRepeatsFromTheCache(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		issued := issue(t, service, "100")
		unknown, err := keys.NewKey()
		if err != nil {
			t.Fatal(err)
		}
		// The right length and prefix, but a wrong checksum: malformed.
		other := "0"
		if issued.Key[keys.KeyLength-1] == '0' {
			other = "1"
		}
		badChecksum := issued.Key[:keys.KeyLength-1] + other
		if keys.CheckFormat(badChecksum) == nil {
			t.Fatalf("%q should fail the format check", badChecksum)
		}
		statements := countStatements(t, db)

		tests := []struct {
			name           string
			raw            string
			want           error
			wantStatements int64
		}{
			{"malformed key: no database", "crw_nope", models.ErrUnknownKey, 0},
			{"wrong checksum: no database", badChecksum, models.ErrUnknownKey, 0},
			{"valid key, first time: one lookup", issued.Key, nil, 1},
			{"valid key again: cached", issued.Key, nil, 0},
			{"unknown key, first time: one lookup", unknown, models.ErrUnknownKey, 1},
			{"unknown key again: cached", unknown, models.ErrUnknownKey, 0},
			{"wrong checksum after the valid key: still refused", badChecksum, models.ErrUnknownKey, 0},
			// The cache names a key by what follows its prefix: another
			// prefix before the valid key's characters is still malformed.
			{"other prefix after the valid key: still refused", "crx_" + issued.Key[len(keys.Prefix):], models.ErrUnknownKey, 0},
			{"upper-case prefix after the valid key: still refused", "CRW_" + issued.Key[len(keys.Prefix):], models.ErrUnknownKey, 0},
		}
		for _, tt := range tests {
			before := statements.Load()
			expectVerify(t, service, tt.raw, tt.want, "100")
			if got := statements.Load() - before; got != tt.wantStatements {
				t.Errorf("%s: %d statements, want %d", tt.name, got, tt.wantStatements)
			}
		}
		clock.Advance(testTTL)
		before := statements.Load()
		expectVerify(t, service, issued.Key, nil, "100")
		if got := statements.Load() - before; got != 1 {
			t.Errorf("after the TTL: %d statements, want a fresh lookup", got)
		}
	})
}

func TestChangesByAnotherProcessAreSeenAfterTheTTL(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		api := newService(t, db, clock)
		bot := newService(t, db, clock)
		issued := issue(t, bot, "100")
		expectVerify(t, api, issued.Key, nil, "100")
		if err := bot.Disable(ctx, "100", "bot", "left"); err != nil {
			t.Fatal(err)
		}
		expectVerify(t, bot, issued.Key, models.ErrKeyDisabled, "")
		clock.Advance(testTTL - 1)
		expectVerify(t, api, issued.Key, nil, "100") // still trusted from the cache
		clock.Advance(1)
		expectVerify(t, api, issued.Key, models.ErrKeyDisabled, "")

		// A negative answer expires the same way.
		if _, err := bot.IssueOrRemind(ctx, keys.Developer{DiscordUserID: "100"}, "bot"); err != nil {
			t.Fatal(err)
		}
		expectVerify(t, api, issued.Key, models.ErrKeyDisabled, "")
		clock.Advance(testTTL)
		expectVerify(t, api, issued.Key, nil, "100")
	})
}

func TestCacheTTLIsClampedToFiveSeconds(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	ctx := context.Background()
	clock := models.NewManualClock(testStart)
	api, err := keys.NewService(db, keys.Config{Secret: testSecret, Clock: clock, CacheTTL: keys.MaxCacheTTL * 100})
	if err != nil {
		t.Fatal(err)
	}
	bot := newService(t, db, clock)
	issued := issue(t, bot, "100")
	expectVerify(t, api, issued.Key, nil, "100")
	if err := bot.Revoke(ctx, "100", "cli", ""); err != nil {
		t.Fatal(err)
	}
	clock.Advance(keys.MaxCacheTTL)
	expectVerify(t, api, issued.Key, models.ErrUnknownKey, "")
}

func TestVerifyWithAnotherSecretKnowsNoKey(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(testStart)
		issued := issue(t, newService(t, db, clock), "100")
		other := make([]byte, 32)
		copy(other, "another secret of thirty-two b..")
		service, err := keys.NewService(db, keys.Config{Secret: other, Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		expectVerify(t, service, issued.Key, models.ErrUnknownKey, "")
		_, err = service.IssueOrRemind(context.Background(), keys.Developer{DiscordUserID: "100"}, "cli")
		if err == nil {
			t.Fatal("a service with another secret revealed a key")
		}
	})
}

func TestVerifyReportsAnUnavailableDatabase(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	service := newService(t, db, models.NewManualClock(testStart))
	raw, err := keys.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, err = service.Verify(context.Background(), raw)
	var unavailable *models.UnavailableError
	if !errors.As(err, &unavailable) || unavailable.Source != "database" {
		t.Fatalf("Verify on a closed database = %v, want a database UnavailableError", err)
	}
}

func TestNewServiceRejectsAShortSecret(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	if _, err := keys.NewService(db, keys.Config{Secret: make([]byte, 31)}); err == nil {
		t.Fatal("NewService accepted a 31-byte secret")
	}
}

// TestVerifyCachedAnswersOnlyFromMemory: VerifyCached gives the verdicts
// the cache holds, refuses a key of the wrong shape, and says
// ErrNotCached for the rest, never asking the database.
func TestVerifyCachedAnswersOnlyFromMemory(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		issued := issue(t, service, "100")
		blacklisted := issue(t, service, "200")
		if err := service.Blacklist(ctx, "200", "abuse", "mod"); err != nil {
			t.Fatal(err)
		}
		statements := countStatements(t, db)
		for _, raw := range []string{issued.Key, blacklisted.Key} {
			if _, err := service.VerifyCached(raw, clock.Now()); !errors.Is(err, keys.ErrNotCached) {
				t.Fatalf("a key never verified: %v, want ErrNotCached", err)
			}
		}
		// The issued key with another last checksum character.
		last := "0"
		if strings.HasSuffix(issued.Key, "0") {
			last = "1"
		}
		badChecksum := strings.TrimSuffix(issued.Key, issued.Key[len(issued.Key)-1:]) + last
		for _, malformed := range []string{"crw_short", badChecksum} {
			if _, err := service.VerifyCached(malformed, clock.Now()); !errors.Is(err, keys.ErrMalformedKey) || !errors.Is(err, models.ErrUnknownKey) {
				t.Fatalf("malformed key %q: %v, want ErrMalformedKey, an ErrUnknownKey", malformed, err)
			}
		}
		if n := statements.Load(); n != 0 {
			t.Fatalf("VerifyCached sent %d statements", n)
		}
		expectVerify(t, service, issued.Key, nil, "100")
		expectVerify(t, service, blacklisted.Key, models.ErrKeyBlacklisted, "")
		statements.Reset()
		identity, err := service.VerifyCached(issued.Key, clock.Now())
		if err != nil || identity.DiscordUserID != "100" {
			t.Fatalf("a cached key: %+v, %v", identity, err)
		}
		if _, err := service.VerifyCached(blacklisted.Key, clock.Now()); !errors.Is(err, models.ErrKeyBlacklisted) {
			t.Fatalf("a cached refusal: %v, want ErrKeyBlacklisted", err)
		}
		if n := statements.Load(); n != 0 {
			t.Fatalf("cached verdicts sent %d statements", n)
		}
		made, err := keys.NewKey()
		if err != nil {
			t.Fatal(err)
		}
		expectVerify(t, service, made, models.ErrUnknownKey, "")
		if _, err := service.VerifyCached(made, clock.Now()); !errors.Is(err, models.ErrUnknownKey) || errors.Is(err, keys.ErrMalformedKey) {
			t.Fatalf("a well-formed unknown key, cached: %v, want ErrUnknownKey, not ErrMalformedKey", err)
		}
		// Past the TTL, the key that authenticated is a recheck; the
		// blacklisted and the unknown ones are lookups like any other.
		clock.Advance(testTTL)
		if _, err := service.VerifyCached(issued.Key, clock.Now()); !errors.Is(err, keys.ErrVerdictExpired) || !errors.Is(err, keys.ErrNotCached) {
			t.Fatalf("after the TTL: %v, want ErrVerdictExpired, an ErrNotCached", err)
		}
		for _, raw := range []string{blacklisted.Key, made} {
			if _, err := service.VerifyCached(raw, clock.Now()); !errors.Is(err, keys.ErrNotCached) || errors.Is(err, keys.ErrVerdictExpired) {
				t.Fatalf("a refused key after the TTL: %v, want ErrNotCached alone", err)
			}
		}
	})
}

// TestAKeyOfABlacklistedDeveloperIsForbidden: a key the database still
// holds as current (active or disabled) is forbidden once its developer
// is blacklisted, whatever its own row says (a row written by another
// process or an older version, or moved by hand).
func TestAKeyOfABlacklistedDeveloperIsForbidden(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		active := issue(t, service, "100")
		disabled := issue(t, service, "200")
		if err := service.Disable(ctx, "200", "bot", "left"); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"100", "200"} {
			err := db.KeyTransition(ctx, func(tx models.KeyTransaction) error {
				developer, err := tx.Developer(id)
				if err != nil {
					return err
				}
				developer.Blacklisted, developer.BlacklistReason, developer.BlacklistedBy = true, "spam", "moderator"
				return tx.UpdateDeveloper(&developer)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		clock.Advance(testTTL) // past the cached verdicts, if any
		expectVerify(t, service, active.Key, models.ErrKeyBlacklisted, "")
		expectVerify(t, service, disabled.Key, models.ErrKeyBlacklisted, "")
	})
}
