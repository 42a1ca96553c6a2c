package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// upgradedAt is when the upgraded release runs.
var upgradedAt = at("2026-12-01T10:00:00Z")

// An upgrade from the schema of an earlier release keeps every kind of
// data it left, as today's store and key service read it: each key
// verifies to its state and its owner is reminded of it, the key events
// read back in order, the clans' tracking and their 4-hourly and weekly
// history read back as stored, the tournaments are listed, the bot's
// positions stay, and migrating again changes nothing. Schema 5 is the
// oldest a release in use has; schema 15 adds what came since.
func TestUpgradeKeepsEveryKindOfData(t *testing.T) {
	releases := []struct {
		version int
		fill    func(oldRelease, fixtureKeys)
		want    func() upgraded
	}{
		{5, fillSchema5, upgradedFromSchema5},
		{15, fillSchema15, upgradedFromSchema15},
	}
	sealed := sealFixtureKeys(t)
	for _, release := range releases {
		for _, engine := range storetest.Engines() {
			t.Run(fmt.Sprintf("from schema %d on %s", release.version, engine), func(t *testing.T) {
				ctx := context.Background()
				db, err := store.Open(ctx, storetest.Config(t, engine))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = db.Close() })
				if _, err := db.MigrateTo(ctx, release.version); err != nil {
					t.Fatal(err)
				}
				if version, err := db.SchemaVersion(ctx); err != nil || version != release.version {
					t.Fatalf("schema at %d (%v), want %d", version, err, release.version)
				}
				// On PostgreSQL, the month's partition of snapshots, made as
				// that release made it.
				if err := db.EnsureSnapshotPartitions(ctx, at("2026-11-01T00:00:00Z"), at("2026-11-30T00:00:00Z")); err != nil {
					t.Fatal(err)
				}
				release.fill(oldRelease{t: t, conn: storetest.SQL(t, db).WithContext(ctx)}, sealed)

				applied, err := db.Migrate(ctx)
				if err != nil || len(applied) == 0 {
					t.Fatalf("upgrade: applied %v, error %v", applied, err)
				}
				want := release.want()
				checkUpgradedSecret(t, db, want.secretRecorded)
				checkUpgraded(t, db, sealed, want)
				if again, err := db.Migrate(ctx); err != nil || len(again) != 0 {
					t.Fatalf("migrating again: applied %v, error %v", again, err)
				}
				checkUpgraded(t, db, sealed, want)
				checkUpgradedTakesChanges(t, db, sealed)
			})
		}
	}
}

// upgraded is what today's store and key service read of an upgraded
// fixture.
type upgraded struct {
	developers      []models.DeveloperInfo
	events          []models.KeyEvent
	cursors         map[string]int64
	clans           []models.TrackedClanSummary
	fourHourly      []models.HistorySnapshot
	weekly          []models.HistorySnapshot
	otherFourHourly []models.HistorySnapshot
	jobs            []models.SnapshotJobStatus
	tournaments     []models.TournamentRecord
	known           []models.TournamentRecord
	// usage is the active key's usage from 2026-11-23 on; catalog the
	// cards' copy (nil: none stored); secretRecorded whether the
	// fixture recorded the secret's check value.
	usage          models.KeyUsageReport
	catalog        *models.GameCatalogCopy
	secretRecorded bool
}

// newService is a key service of the upgraded release: a new process,
// whose cache knows nothing yet.
func newService(t *testing.T, db *store.Store) *keys.Service {
	t.Helper()
	service, err := keys.NewService(db, keys.Config{Secret: upgradeSecret, Clock: models.NewManualClock(upgradedAt)})
	if err != nil {
		t.Fatal(err)
	}
	return service
}

// checkUpgraded reads everything of the fixture back through today's
// Store and keys.Service, and compares it with want.
func checkUpgraded(t *testing.T, db *store.Store, k fixtureKeys, want upgraded) {
	t.Helper()
	ctx := context.Background()
	service := newService(t, db)
	for _, c := range []struct {
		name    string
		key     sealedKey
		wantErr error
	}{
		{"active", k.active, nil},
		{"replaced", k.replaced, models.ErrUnknownKey},
		{"disabled", k.disabled, models.ErrKeyDisabled},
		{"blacklisted", k.blacklisted, models.ErrKeyBlacklisted},
		{"revoked", k.revoked, models.ErrUnknownKey},
	} {
		identity, err := service.Verify(ctx, c.key.raw)
		if !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
			t.Errorf("the %s key verifies with %v, want %v", c.name, err, c.wantErr)
		}
		if c.wantErr == nil && identity != (keys.Identity{KeyID: 3, DeveloperID: 1, DiscordUserID: ana}) {
			t.Errorf("the %s key verifies as %+v, want key 3 of developer 1, %s", c.name, identity, ana)
		}
	}
	reminded, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: ana}, "discord:"+ana)
	if err != nil || reminded != (keys.Issued{Key: k.active.raw, KeyID: 3}) {
		t.Errorf("the active key's owner is reminded of key %d (created %v, error %v), want the same plaintext of key 3", reminded.KeyID, reminded.Created, err)
	}
	for _, blacklisted := range []string{zoe, eve} {
		if _, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: blacklisted}, "discord:"+blacklisted); !errors.Is(err, models.ErrDeveloperBlacklisted) {
			t.Errorf("blacklisted %s asks for a key: %v, want ErrDeveloperBlacklisted", blacklisted, err)
		}
	}
	developers, err := service.List(ctx)
	sameAs(t, "developers", developers, err, want.developers)
	events, err := service.Events(ctx, 0, 100)
	sameAs(t, "key events", events, err, want.events)
	for name, position := range want.cursors {
		if got, err := db.BotCursorPosition(ctx, name); err != nil || got != position {
			t.Errorf("bot cursor %s at %d (%v), want %d", name, got, err, position)
		}
	}

	clans, err := db.ListTrackedClans(ctx, true)
	sameAs(t, "tracked clans", clans, err, want.clans)
	from, to := at("2026-11-01T00:00:00Z"), at("2026-11-30T00:00:00Z")
	history, err := db.ClanHistory(ctx, weeklyClan, models.SnapshotFourHourly, from, to)
	sameAs(t, "4-hourly history", history, err, want.fourHourly)
	history, err = db.ClanHistory(ctx, weeklyClan, models.SnapshotWeekly, from, to)
	sameAs(t, "weekly history", history, err, want.weekly)
	history, err = db.ClanHistory(ctx, fourHourly, models.SnapshotFourHourly, from, to)
	sameAs(t, "4-hourly history of the clan without weekly", history, err, want.otherFourHourly)
	if _, err := db.ClanHistory(ctx, fourHourly, models.SnapshotWeekly, from, to); !errors.Is(err, models.ErrWeeklyNotEnabled) {
		t.Errorf("weekly history of the clan without weekly: %v, want ErrWeeklyNotEnabled", err)
	}
	if _, err := db.ClanHistory(ctx, untrackedTag, models.SnapshotFourHourly, from, to); !errors.Is(err, models.ErrNotTracked) {
		t.Errorf("history of the untracked clan: %v, want ErrNotTracked", err)
	}
	var jobs []models.SnapshotJobStatus
	for _, slot := range []time.Time{at("2026-11-20T08:00:00Z"), at("2026-11-20T12:00:00Z")} {
		job, err := db.SnapshotJobStatus(ctx, 1, models.SnapshotFourHourly, slot)
		if err != nil {
			t.Errorf("snapshot job of %v: %v", slot, err)
		}
		jobs = append(jobs, job)
	}
	sameAs(t, "snapshot jobs", jobs, nil, want.jobs)

	tournaments, err := db.ListTournaments(ctx, nil, models.MaxTournamentListLength)
	sameAs(t, "tournaments", tournaments, err, want.tournaments)
	known, err := db.ListTournaments(ctx, []models.TournamentPredicate{models.TournamentKnown}, models.MaxTournamentListLength)
	sameAs(t, "known tournaments", known, err, want.known)
	// A claim of another replica within the period the old one took is refused.
	if claimed, err := db.ClaimPeriodicTask(ctx, "tournament-search", "replica-b", at("2026-11-22T14:30:00Z"), time.Hour); err != nil || claimed {
		t.Errorf("the tournament search claimed until 15:00 is claimed at 14:30: %v (%v)", claimed, err)
	}

	usage, err := service.KeyUsage(ctx, 3, 9, upgradedAt)
	sameAs(t, "usage of the active key", usage, err, want.usage)
	catalog, err := db.GameCatalog(ctx, "cards")
	if want.catalog == nil {
		if !errors.Is(err, models.ErrNotFound) {
			t.Errorf("a card catalog never stored: %v, want ErrNotFound", err)
		}
	} else {
		sameAs(t, "card catalog", catalog, err, *want.catalog)
	}
}

// checkUpgradedSecret checks that the secret's check value, when the
// fixture recorded it, is kept; that a process of another secret than the
// one the keys were sealed under is refused; and that one of the same
// secret is let through.
func checkUpgradedSecret(t *testing.T, db *store.Store, recorded bool) {
	t.Helper()
	ctx := context.Background()
	other := bytes.Repeat([]byte("x"), 32)
	if recorded {
		// A value is recorded only where none is.
		if check, err := db.RecordSecretCheck(ctx, keys.SecretCheck(other), upgradedAt); err != nil || check != keys.SecretCheck(upgradeSecret) {
			t.Errorf("the secret's check value recorded is %q (%v), want the fixture's %q", check, err, keys.SecretCheck(upgradeSecret))
		}
	}
	if err := keys.VerifySecret(ctx, db, other, upgradedAt); !errors.Is(err, keys.ErrSecretDiffers) {
		t.Errorf("another secret than the keys were sealed under: %v, want ErrSecretDiffers", err)
	}
	if err := keys.VerifySecret(ctx, db, upgradeSecret, upgradedAt); err != nil {
		t.Errorf("the secret the keys were sealed under: %v", err)
	}
}

// checkUpgradedTakesChanges makes changes on the upgraded database: the
// disabled key's owner comes back and gets the same key, and the owner of
// the revoked key gets a new one, the row after the old release's.
func checkUpgradedTakesChanges(t *testing.T, db *store.Store, k fixtureKeys) {
	t.Helper()
	ctx := context.Background()
	service := newService(t, db)
	back, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: ben}, "discord:"+ben)
	if err != nil || back != (keys.Issued{Key: k.disabled.raw, KeyID: 2, Reenabled: true}) {
		t.Errorf("the disabled key's owner comes back: key %d, reenabled %v (%v); want the same plaintext of key 2", back.KeyID, back.Reenabled, err)
	}
	renewed, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: dan}, "discord:"+dan)
	if err != nil || !renewed.Created || renewed.KeyID <= 5 {
		t.Fatalf("the revoked key's owner asks again: key %d, created %v (%v); want a new key after the 5 of the old release", renewed.KeyID, renewed.Created, err)
	}
	for raw, owner := range map[string]string{k.disabled.raw: ben, renewed.Key: dan} {
		if identity, err := service.Verify(ctx, raw); err != nil || identity.DiscordUserID != owner {
			t.Errorf("key %d verifies as %+v (%v), want %s's", identity.KeyID, identity, err, owner)
		}
	}
}

// sameAs reports what, read back as got (with err), when it differs from
// want; values are compared as JSON, which writes times as instants
// whatever the location each engine reads them in.
func sameAs(t *testing.T, what string, got any, err error, want any) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	gotJSON, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, err := json.MarshalIndent(want, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("%s read back as\n%s\nwant\n%s", what, gotJSON, wantJSON)
	}
}
