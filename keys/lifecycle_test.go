package keys_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestIssueOrRemindReturnsTheSameKey(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		service := newService(t, db, models.NewManualClock(testStart))
		first := issue(t, service, "100")
		if !first.Created || first.Reenabled || keys.CheckFormat(first.Key) != nil {
			t.Fatalf("first request: %+v, want a created well-formed key", first)
		}
		second := issue(t, service, "100")
		if second.Key != first.Key || second.KeyID != first.KeyID || second.Created || second.Reenabled {
			t.Fatalf("reminder: created=%v reenabled=%v same key=%v, want the same key, nothing created",
				second.Created, second.Reenabled, second.Key == first.Key)
		}
		expectVerify(t, service, first.Key, nil, "100")
		other := issue(t, service, "200")
		if other.Key == first.Key {
			t.Fatal("two developers got the same key")
		}
		expectVerify(t, service, other.Key, nil, "200")
		if events := keyEvents(t, service); len(events) != 2 {
			t.Fatalf("%d events, want 2 issues (reminders are not recorded)", len(events))
		}
	})
}

func TestRegenerateMakesTheOldKeyUnknown(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		service := newService(t, db, models.NewManualClock(testStart))
		old := issue(t, service, "100")
		expectVerify(t, service, old.Key, nil, "100") // cached as valid
		fresh, err := service.Regenerate(ctx, keys.Developer{DiscordUserID: "100"}, "discord:100")
		if err != nil {
			t.Fatal(err)
		}
		if fresh.Key == old.Key || !fresh.Created {
			t.Fatalf("regenerate: %+v, want a new key", fresh)
		}
		expectVerify(t, service, old.Key, models.ErrUnknownKey, "")
		expectVerify(t, service, fresh.Key, nil, "100")
		if reminder := issue(t, service, "100"); reminder.Key != fresh.Key {
			t.Fatal("reminder after regenerate did not return the new key")
		}
	})
}

func TestDisableThenIssueReenablesTheSameKey(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		service := newService(t, db, models.NewManualClock(testStart))
		issued := issue(t, service, "100")
		expectVerify(t, service, issued.Key, nil, "100") // cached as valid
		if err := service.Disable(ctx, "100", "bot", "left the server"); err != nil {
			t.Fatal(err)
		}
		// The clock has not moved: only invalidation can explain this.
		expectVerify(t, service, issued.Key, models.ErrKeyDisabled, "")
		if err := service.Disable(ctx, "100", "bot", "left again"); err != nil {
			t.Fatalf("disabling a disabled key: %v", err)
		}
		back := issue(t, service, "100")
		if back.Key != issued.Key || !back.Reenabled || back.Created {
			t.Fatalf("after rejoining: %+v, want the same key re-enabled", back)
		}
		expectVerify(t, service, issued.Key, nil, "100")
		var actions []models.KeyAction
		for _, event := range keyEvents(t, service) {
			actions = append(actions, event.Action)
		}
		want := []models.KeyAction{models.KeyActionIssued, models.KeyActionDisabled, models.KeyActionReenabled}
		if !slices.Equal(actions, want) {
			t.Fatalf("events %v, want %v", actions, want)
		}
	})
}

func TestRevokeMakesTheKeyUnknownAndAllowsANewOne(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		service := newService(t, db, models.NewManualClock(testStart))
		old := issue(t, service, "100")
		expectVerify(t, service, old.Key, nil, "100")
		if err := service.Revoke(ctx, "100", "cli", "leaked in a repository"); err != nil {
			t.Fatal(err)
		}
		expectVerify(t, service, old.Key, models.ErrUnknownKey, "")
		fresh := issue(t, service, "100")
		if fresh.Key == old.Key || !fresh.Created {
			t.Fatalf("after revoke: %+v, want a new key", fresh)
		}
		expectVerify(t, service, fresh.Key, nil, "100")
		expectVerify(t, service, old.Key, models.ErrUnknownKey, "")
	})
}

func TestBlacklistForbidsKeysUntilUnblacklisted(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		old := issue(t, service, "100")
		expectVerify(t, service, old.Key, nil, "100")
		clock.Advance(time.Minute)
		if err := service.Blacklist(ctx, "100", "reselling keys", "discord:900"); err != nil {
			t.Fatal(err)
		}
		expectVerify(t, service, old.Key, models.ErrKeyBlacklisted, "")
		dev := keys.Developer{DiscordUserID: "100"}
		if _, err := service.IssueOrRemind(ctx, dev, "discord:100"); !errors.Is(err, models.ErrDeveloperBlacklisted) {
			t.Fatalf("issue while blacklisted: %v, want ErrDeveloperBlacklisted", err)
		}
		if _, err := service.Regenerate(ctx, dev, "discord:100"); !errors.Is(err, models.ErrDeveloperBlacklisted) {
			t.Fatalf("regenerate while blacklisted: %v, want ErrDeveloperBlacklisted", err)
		}
		info, err := service.Info(ctx, "100")
		if err != nil {
			t.Fatal(err)
		}
		if info.State != models.DeveloperBlacklisted || info.BlacklistReason != "reselling keys" ||
			info.BlacklistedBy != "discord:900" || info.BlacklistedAt == nil || !info.BlacklistedAt.Equal(clock.Now()) {
			t.Fatalf("info %+v, want the blacklisting recorded", info)
		}

		if err := service.Unblacklist(ctx, "100", "discord:900"); err != nil {
			t.Fatal(err)
		}
		expectVerify(t, service, old.Key, models.ErrKeyBlacklisted, "")
		fresh := issue(t, service, "100")
		if fresh.Key == old.Key || !fresh.Created {
			t.Fatalf("after unblacklist: %+v, want a new key", fresh)
		}
		expectVerify(t, service, fresh.Key, nil, "100")
		expectVerify(t, service, old.Key, models.ErrKeyBlacklisted, "")
		info, err = service.Info(ctx, "100")
		if err != nil {
			t.Fatal(err)
		}
		if info.State != models.DeveloperActive || info.BlacklistReason != "" || info.BlacklistedAt != nil ||
			info.KeyCounts[models.KeyBlacklisted] != 1 || info.KeyCounts[models.KeyActive] != 1 {
			t.Fatalf("info after unblacklist %+v", info)
		}
	})
}

func TestBlacklistRecordsADeveloperWhoNeverAsked(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		service := newService(t, db, models.NewManualClock(testStart))
		if err := service.Blacklist(ctx, "300", "spam", "cli"); err != nil {
			t.Fatal(err)
		}
		if err := service.Blacklist(ctx, "300", "spam again", "cli"); !errors.Is(err, models.ErrDeveloperBlacklisted) {
			t.Fatalf("blacklisting again: %v, want models.ErrDeveloperBlacklisted", err)
		}
		info, err := service.Info(ctx, "300")
		if err != nil {
			t.Fatal(err)
		}
		if info.State != models.DeveloperBlacklisted || info.BlacklistReason != "spam" || len(info.KeyCounts) != 0 {
			t.Fatalf("info %+v, want blacklisted for the first reason, no keys", info)
		}
		if _, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: "300"}, "discord:300"); !errors.Is(err, models.ErrDeveloperBlacklisted) {
			t.Fatalf("issue: %v, want ErrDeveloperBlacklisted", err)
		}
		events := keyEvents(t, service)
		if len(events) != 1 || events[0].Action != models.KeyActionBlacklisted || events[0].KeyID != nil {
			t.Fatalf("events %+v, want one blacklisting without a key", events)
		}
	})
}

func TestTransitionsOfUnknownDevelopersAndBadInput(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		service := newService(t, db, models.NewManualClock(testStart))
		tests := []struct {
			name string
			call func() error
			want error
		}{
			{"disable unknown", func() error { return service.Disable(ctx, "555", "bot", "") }, models.ErrNotFound},
			{"revoke unknown", func() error { return service.Revoke(ctx, "555", "cli", "") }, models.ErrNotFound},
			{"unblacklist unknown", func() error { return service.Unblacklist(ctx, "555", "cli") }, models.ErrNotFound},
			{"info unknown", func() error { _, err := service.Info(ctx, "555"); return err }, models.ErrNotFound},
			{"letters in id", func() error { return service.Disable(ctx, "12a", "bot", "") }, models.ErrInvalid},
			{"empty id", func() error { _, err := service.IssueOrRemind(ctx, keys.Developer{}, "cli"); return err }, models.ErrInvalid},
			{"21 digits", func() error { return service.Blacklist(ctx, "123456789012345678901", "", "cli") }, models.ErrInvalid},
			{"a leading zero", func() error {
				_, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: "0042"}, "cli")
				return err
			}, models.ErrInvalid},
			{"past the largest snowflake", func() error { return service.Blacklist(ctx, "18446744073709551616", "", "cli") }, models.ErrInvalid},
			{"no actor", func() error { return service.Revoke(ctx, "1", " ", "") }, models.ErrInvalid},
		}
		for _, tt := range tests {
			if err := tt.call(); !errors.Is(err, tt.want) {
				t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
			}
		}
		if infos, err := service.List(ctx); err != nil || len(infos) != 0 {
			t.Fatalf("List = %v, %v: failed calls must record nobody", infos, err)
		}
	})
}

// A developer's display name follows them: the name of their latest
// request is stored, and nothing else of the row changes with it.
func TestADevelopersNewDisplayNameIsStored(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		if _, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: "100", DisplayName: "alice"}, "discord:100"); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Hour)
		if _, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: "100", DisplayName: "alice2"}, "discord:100"); err != nil {
			t.Fatal(err)
		}
		info, err := service.Info(ctx, "100")
		if err != nil {
			t.Fatal(err)
		}
		if info.DisplayName != "alice2" || info.State != models.DeveloperActive || !info.CreatedAt.Equal(testStart) {
			t.Fatalf("info %+v, want the new name, still active, first seen at the start", info)
		}
	})
}
