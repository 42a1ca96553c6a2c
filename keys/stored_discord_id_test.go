package keys_test

import (
	"context"
	"errors"
	"testing"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// Releases before the leading-zero and snowflake bounds of Discord user
// ids stored developers under ids such as 0042 and 99999999999999999999.
// After an upgrade their keys still authenticate, so each must still be
// shown, reminded, disabled, revoked, blacklisted and unblacklisted; only
// a developer not stored yet is held to the bounds.
func TestDevelopersStoredUnderIdsNowRefusedAreStillManaged(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		service := newService(t, db, models.NewManualClock(testStart))
		for stored, issuedAs := range map[string]string{"0042": "42", "99999999999999999999": "99"} {
			first := issue(t, service, issuedAs)
			// What an earlier release stored: the developer under the id as typed.
			if err := storetest.SQL(t, db).WithContext(ctx).Exec(`UPDATE developers SET discord_user_id = ? WHERE discord_user_id = ?`, stored, issuedAs).Error; err != nil {
				t.Fatal(err)
			}
			if info, err := service.Info(ctx, stored); err != nil || info.DiscordUserID != stored || info.State != models.DeveloperActive {
				t.Fatalf("Info(%s) = %+v, %v; want the active developer", stored, info, err)
			}
			again, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: stored}, "cli")
			if err != nil || again.Key != first.Key {
				t.Fatalf("remind %s: %v, same key %v", stored, err, again.Key == first.Key)
			}
			if err := service.Disable(ctx, stored, "bot", "left"); err != nil {
				t.Fatalf("disable %s: %v", stored, err)
			}
			expectVerify(t, service, first.Key, models.ErrKeyDisabled, "")
			if err := service.Revoke(ctx, stored, "cli", "leaked"); err != nil {
				t.Fatalf("revoke %s: %v", stored, err)
			}
			expectVerify(t, service, first.Key, models.ErrUnknownKey, "")
			if err := service.Blacklist(ctx, stored, "abuse", "cli"); err != nil {
				t.Fatalf("blacklist %s: %v", stored, err)
			}
			if err := service.Unblacklist(ctx, stored, "cli"); err != nil {
				t.Fatalf("unblacklist %s: %v", stored, err)
			}
		}
		for _, id := range []string{"0043", "18446744073709551616"} {
			if _, err := service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: id}, "cli"); !errors.Is(err, models.ErrInvalid) {
				t.Errorf("issue to a new developer %s: %v, want ErrInvalid", id, err)
			}
			if err := service.Blacklist(ctx, id, "", "cli"); !errors.Is(err, models.ErrInvalid) {
				t.Errorf("blacklist a new developer %s: %v, want ErrInvalid", id, err)
			}
		}
		if infos, err := service.List(ctx); err != nil || len(infos) != 2 {
			t.Fatalf("List = %d developers, %v; want the two stored, none recorded by the refusals", len(infos), err)
		}
	})
}
