package bot_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// Every request the bot sends in a run of every command, button, form
// and post, with the longest texts the keys service stores, keeps to what
// Discord's API takes (see discordtest.Check, which the fake applies to
// every request of every test).
func TestEveryRequestToDiscordIsOneDiscordTakes(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	ctx := t.Context()
	longName := strings.Repeat("ж", 100)                         // the longest display name the keys service stores
	longReason := strings.Repeat("ж", 500)                       // the longest reason it stores
	longActor := "discord:" + strings.Repeat("9", 92)            // the longest actor
	longURL := "https://example.com/" + strings.Repeat("ж", 500) // kept to 400 characters

	d.discord.SetMembers(developerID, otherDevID, moderatorID)
	d.bot.HandleReady(ctx, &discordgo.Ready{
		User:        &discordgo.User{ID: discordtest.DefaultBotUserID},
		Application: &discordgo.Application{ID: discordtest.DefaultApplicationID},
		Guilds:      []*discordgo.Guild{{ID: guildID}},
	})
	named := func(userID string) {
		t.Helper()
		if _, err := d.keys.IssueOrRemind(ctx, keys.Developer{DiscordUserID: userID, DisplayName: longName}, "cli"); err != nil {
			t.Fatal(err)
		}
	}
	busy := func(userID string) {
		t.Helper()
		d.use(userID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700, ClientErrors: 3}, 0)
		for _, route := range []string{"/clan/:tag/history", "/clan/:tag/track", "/player/:tag/battles", "/tournaments/:tag", "/auth/stats"} {
			d.use(userID, route, models.KeyUsageCount{Requests: 9_999_999_999, ClientErrors: 9_999_999_999}, 1)
		}
	}

	// A member's slash commands, buttons and text commands.
	d.slash(developerID, keyChannelID, 0, "key", "get")
	if _, err := d.bot.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	d.slash(developerID, otherChannelID, 0, "key", "get")
	busy(developerID)
	d.slash(developerID, keyChannelID, 0, "key", "stats")
	d.slash(developerID, keyChannelID, 0, "key", "regenerate")
	d.pressButton(otherDevID, "regenerate", developerID)
	d.press(developerID, developerID)
	d.press(developerID, developerID)
	d.slash(developerID, keyChannelID, 0, "key", "revoke")
	d.pressButton(developerID, "revoke", developerID)
	d.say(developerID, keyChannelID, "!key")
	d.say(developerID, keyChannelID, "!key get")
	d.say(developerID, keyChannelID, "!key regenerate")
	d.say(developerID, keyChannelID, "!key revoke")
	d.say(developerID, otherChannelID, "!key get")
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/users/@me/channels", Failure: discordtest.DMClosed, Times: 1})
	d.slash(otherDevID, keyChannelID, 0, "key", "get")
	d.slash(otherDevID, keyChannelID, 0, "key", "get")

	// Moderators' commands, with the longest texts stored and the most
	// keys listed.
	for n := range 10 {
		heavy := "1844674407370955160" + strconv.Itoa(n)
		named(heavy)
		busy(heavy)
	}
	named(developerID)
	busy(developerID)
	d.keyadmin(moderatorPerms, "info", userOption(developerID))
	d.keyadmin(moderatorPerms, "top")
	d.keyadmin(moderatorPerms, "top", stringOption("period", "week"))
	d.keyadmin(moderatorPerms, "revoke", userOption(otherDevID), stringOption("reason", strings.Repeat("ж", 200)))
	d.keyadmin(moderatorPerms, "revoke", userOption(otherDevID))
	d.keyadmin(moderatorPerms, "blacklist", userOption(otherDevID), stringOption("reason", strings.Repeat("ж", 200)))
	d.keyadmin(moderatorPerms, "unblacklist", userOption(otherDevID))
	d.keyadmin(0, "info", userOption(developerID))
	d.slash(moderatorID, otherChannelID, moderatorPerms, "clan", "weekly", stringOption("tag", "#2CCCP"), stringOption("state", "on"))

	// The log channel: key events, a usage alert, its button and form.
	if posted, err := d.bot.CheckUsageAlerts(ctx); err != nil || posted == 0 {
		t.Fatalf("CheckUsageAlerts posted %d (%v), want alerts", posted, err)
	}
	d.component(developerID, 0, "crowns:blacklist:"+developerID)
	d.component(moderatorID, moderatorPerms, "crowns:blacklist:"+developerID)
	d.submitReason(moderatorID, moderatorPerms, strings.Repeat("ж", 200))
	if err := d.keys.Unblacklist(ctx, developerID, "cli"); err != nil {
		t.Fatal(err)
	}
	named(developerID)
	busy(developerID)
	if err := d.keys.Blacklist(ctx, developerID, longReason, longActor); err != nil {
		t.Fatal(err)
	}
	d.component(otherModID, moderatorPerms, "crowns:blacklist:"+developerID)
	d.submitReason(otherModID, moderatorPerms, "again")
	d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", "again"))
	d.keyadmin(moderatorPerms, "info", userOption(developerID))
	leaked := d.getKey(moderatorID)
	if _, err := d.keys.RevokeLeaked(ctx, leaked, longURL); err != nil {
		t.Fatal(err)
	}
	if _, err := d.bot.PostPendingEvents(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := d.bot.TellLeakedKeyOwners(ctx); err != nil {
		t.Fatal(err)
	}

	seen := map[string]bool{}
	longest := map[string]bool{}
	for _, r := range d.discord.Requests() {
		// The fake refuses, and fails the test on, any request whose
		// Check finds problems.
		operation, _ := discordtest.Check(r)
		seen[operation] = true
		for _, text := range []string{longName, longReason, strings.Repeat("ж", 400)} {
			if strings.Contains(string(r.Body), text) {
				longest[text] = true
			}
		}
	}
	for _, operation := range []string{"bulk_set_guild_application_commands", "list_guild_members", "create_dm", "create_message",
		"delete_message", "update_original_webhook_message", "interaction callback 4", "interaction callback 5",
		"interaction callback 6", "interaction callback 9"} {
		if !seen[operation] {
			t.Errorf("the run sent no %s request", operation)
		}
	}
	if len(longest) != 3 {
		t.Errorf("the longest name, reason and address reached Discord in %d of 3 cases: the run misses what it means to check", len(longest))
	}
}
