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

func TestTransitionsAreRecordedAndAnnounced(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		var heard []keys.Event
		unsubscribe := service.Subscribe(func(e keys.Event) { heard = append(heard, e) })
		dev := keys.Developer{DiscordUserID: "100"}

		steps := []struct {
			do     func() error
			action models.KeyAction
			actor  string
			reason string
			hasKey bool
		}{
			{func() error { _, err := service.IssueOrRemind(ctx, dev, "discord:100"); return err }, models.KeyActionIssued, "discord:100", "", true},
			{func() error { _, err := service.Regenerate(ctx, dev, "discord:100"); return err }, models.KeyActionRegenerated, "discord:100", "replaces key 1", true},
			{func() error { return service.Disable(ctx, "100", "bot", "left the server") }, models.KeyActionDisabled, "bot", "left the server", true},
			{func() error { _, err := service.IssueOrRemind(ctx, dev, "discord:100"); return err }, models.KeyActionReenabled, "discord:100", "", true},
			{func() error { return service.Revoke(ctx, "100", "cli", "leaked") }, models.KeyActionRevoked, "cli", "leaked", true},
			{func() error { return service.Blacklist(ctx, "100", "abuse", "discord:900") }, models.KeyActionBlacklisted, "discord:900", "abuse", false},
			{func() error { return service.Unblacklist(ctx, "100", "discord:900") }, models.KeyActionUnblacklisted, "discord:900", "", false},
		}
		for i, step := range steps {
			clock.Advance(time.Minute)
			if err := step.do(); err != nil {
				t.Fatalf("step %d (%s): %v", i, step.action, err)
			}
		}
		events := keyEvents(t, service)
		if len(events) != len(steps) || len(heard) != len(steps) {
			t.Fatalf("%d events recorded, %d announced; want %d", len(events), len(heard), len(steps))
		}
		for i, step := range steps {
			event, announced := events[i], heard[i]
			wantAt := testStart.Add(time.Duration(i+1) * time.Minute)
			if event.Action != step.action || event.Actor != step.actor || event.Reason != step.reason ||
				event.DiscordUserID != "100" || !event.CreatedAt.Equal(wantAt) || (event.KeyID != nil) != step.hasKey {
				t.Errorf("event %d = %+v, want %s by %s because %q at %v", i, event, step.action, step.actor, step.reason, wantAt)
			}
			var keyID int64
			if event.KeyID != nil {
				keyID = *event.KeyID
			}
			if announced.ID != event.ID || announced.Action != event.Action || announced.Actor != event.Actor ||
				announced.Reason != event.Reason || announced.KeyID != keyID || !announced.At.Equal(wantAt) {
				t.Errorf("announced %+v, recorded %+v", announced, event)
			}
		}
		if *events[0].KeyID == *events[1].KeyID {
			t.Error("the regeneration event names the old key, want the new one")
		}

		page, err := service.Events(ctx, events[2].ID, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) != 2 || page[0].ID != events[3].ID || page[1].ID != events[4].ID {
			t.Errorf("Events after %d, limit 2 = %+v", events[2].ID, page)
		}

		unsubscribe()
		if _, err := service.IssueOrRemind(ctx, dev, "discord:100"); err != nil {
			t.Fatal(err)
		}
		if len(heard) != len(steps) {
			t.Errorf("a listener heard %d events after unsubscribing", len(heard)-len(steps))
		}
		if count := len(keyEvents(t, service)); count != len(steps)+1 {
			t.Errorf("%d events after a new issue, want %d", count, len(steps)+1)
		}
	})
}

func TestDevelopersWithActiveKeys(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		service := newService(t, db, models.NewManualClock(testStart))
		for _, id := range []string{"3", "1", "2", "4"} {
			issue(t, service, id)
		}
		if err := service.Disable(ctx, "2", "bot", ""); err != nil {
			t.Fatal(err)
		}
		if err := service.Blacklist(ctx, "4", "", "cli"); err != nil {
			t.Fatal(err)
		}
		ids, err := service.DevelopersWithActiveKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != 2 || ids[0] != "1" || ids[1] != "3" {
			t.Fatalf("developers with active keys %v, want [1 3]", ids)
		}
	})
}
