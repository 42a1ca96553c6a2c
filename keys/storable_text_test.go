package keys_test

import (
	"context"
	"testing"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// A display name, the actor of a key request, a moderator's name and reasons with a NUL or invalid
// UTF-8 (which PostgreSQL refuses in text) are stored on either engine,
// each replaced by U+FFFD.
func TestNamesAndReasonsWithANULAreStored(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		service := newService(t, db, models.NewManualClock(testStart))
		dev := keys.Developer{DiscordUserID: "300", DisplayName: "Na\x00me\xff"}
		if _, err := service.IssueOrRemind(ctx, dev, "cli\x00"); err != nil {
			t.Fatalf("issue: %v", err)
		}
		if _, err := service.Regenerate(ctx, dev, "cli\x00"); err != nil {
			t.Fatalf("regenerate: %v", err)
		}
		if err := service.Revoke(ctx, "300", "mod\x00", "spam\x00"); err != nil {
			t.Fatalf("revoke: %v", err)
		}
		if err := service.Blacklist(ctx, "300", "abuse\x00", "mod\x00"); err != nil {
			t.Fatalf("blacklist: %v", err)
		}
		info, err := service.Info(ctx, "300")
		if err != nil {
			t.Fatal(err)
		}
		if info.DisplayName != "Na\uFFFDme\uFFFD" || info.BlacklistReason != "abuse\uFFFD" || info.BlacklistedBy != "mod\uFFFD" {
			t.Fatalf("info %+v, want each NUL and invalid byte as U+FFFD", info)
		}
		var reasons []string
		requests := 0
		for _, event := range keyEvents(t, service) {
			switch event.Actor {
			case "mod\uFFFD":
				reasons = append(reasons, event.Reason)
			case "cli\uFFFD":
				requests++
			}
		}
		if requests != 2 {
			t.Errorf("%d events of the key requests have the actor cli\uFFFD, want the issue and the regeneration", requests)
		}
		if len(reasons) != 2 || reasons[0] != "spam\uFFFD" || reasons[1] != "abuse\uFFFD" {
			t.Fatalf("the moderator's events have reasons %q, want spam\uFFFD and abuse\uFFFD", reasons)
		}
	})
}
