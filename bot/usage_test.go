package bot_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// use records stored usage of a developer's current key in the current
// hour of the desk's clock.
func (d *desk) use(userID, route string, count models.KeyUsageCount, hoursAgo int) {
	d.t.Helper()
	ctx := context.Background()
	info, err := d.keys.Info(ctx, userID)
	if err != nil {
		d.t.Fatal(err)
	}
	slot := models.KeyUsageCell{KeyID: info.CurrentKeyID, Hour: d.clock.Now().Add(-time.Duration(hoursAgo) * time.Hour), Route: route}
	if err := d.db.AddKeyUsage(ctx, models.KeyUsageBatch{ID: rand.Text(), At: d.clock.Now(), Counts: map[models.KeyUsageCell]models.KeyUsageCount{slot: count}}); err != nil {
		d.t.Fatal(err)
	}
}

func TestKeyStatsShowsTheMembersOwnWeek(t *testing.T) {
	d := newDesk(t, deskOptions{})
	d.getKey(developerID)
	otherKey := d.getKey(otherDevID)
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 42, RateLimited: 5, ClientErrors: 1}, 0)
	d.use(otherDevID, "/clan/search", models.KeyUsageCount{Requests: 999}, 0)
	i := d.slash(developerID, keyChannelID, 0, "key", "stats")
	d.assertEphemeral(i)
	text := d.answerText(i)
	if !strings.Contains(text, "2025-06-02        42        5       1") || strings.Contains(text, "999") ||
		!strings.Contains(text, "2025-05-27") || !strings.Contains(text, "`/clan/search` 42") {
		t.Errorf("/key stats answer:\n%s", text)
	}
	if text := d.answerText(d.slash(moderatorID, keyChannelID, moderatorPerms, "key", "stats")); !strings.Contains(text, "/key get") {
		t.Errorf("/key stats without a key: %q", text)
	}
	// A member whose key was revoked has no key of their own to show.
	if _, err := d.keys.RevokeLeaked(t.Context(), otherKey, "https://example.com/leak"); err != nil {
		t.Fatal(err)
	}
	if text := d.answerText(d.slash(otherDevID, keyChannelID, 0, "key", "stats")); !strings.Contains(text, "/key get") || strings.Contains(text, "999") {
		t.Errorf("/key stats after a revoke: %q", text)
	}
}

func TestKeyAdminInfoAndTopShowUsage(t *testing.T) {
	d := newDesk(t, deskOptions{})
	d.getKey(developerID)
	d.getKey(otherDevID)
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 30, RateLimited: 15}, 0)
	d.use(developerID, "/player/:tag/battles", models.KeyUsageCount{Requests: 10}, 0)
	d.use(otherDevID, "/clan/search", models.KeyUsageCount{Requests: 100}, 48)

	_, embeds, _ := d.answerOf(d.keyadmin(moderatorPerms, "info", userOption(developerID)))
	if !strings.Contains(embeds, "Usage of key record #1, last 30 days: 40 requests, 15 rate-limited (38%)") ||
		!strings.Contains(embeds, "Top routes: `/clan/search` 30, `/player/:tag/battles` 10") {
		t.Errorf("/keyadmin info embeds:%s", embeds)
	}
	day := d.answerText(d.keyadmin(moderatorPerms, "top"))
	if !strings.Contains(day, "1. <@"+developerID+">") || !strings.Contains(day, "40 requests, 38% rate-limited") || strings.Contains(day, otherDevID) {
		t.Errorf("/keyadmin top:\n%s", day)
	}
	week := d.answerText(d.keyadmin(moderatorPerms, "top", stringOption("period", "week")))
	if !strings.HasPrefix(week, "Heaviest keys of the last week") || !strings.Contains(week, "1. <@"+otherDevID+">") {
		t.Errorf("/keyadmin top week:\n%s", week)
	}
	if text := d.answerText(d.keyadmin(0, "top")); !strings.Contains(text, "Only moderators") {
		t.Errorf("/keyadmin top by a member: %q", text)
	}

	// Blacklisted, the developer's usage is still the evidence.
	d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", "scraping"))
	if _, embeds, _ := d.answerOf(d.keyadmin(moderatorPerms, "info", userOption(developerID))); !strings.Contains(embeds, "Usage of key record #1 (no longer in use), last 30 days: 40 requests") {
		t.Errorf("/keyadmin info of a blacklisted developer: %s", embeds)
	}
}

// The usage /keyadmin info shows names its key record, as the alert
// does: a member who regenerated after an alert shows the new key's
// usage, which a moderator can tell from the alerted key's.
func TestKeyAdminInfoNamesTheKeyWhoseUsageItShows(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	d.getKey(developerID)
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
	if posted, err := d.bot.CheckUsageAlerts(t.Context()); err != nil || posted != 1 {
		t.Fatalf("CheckUsageAlerts posted %d (%v), want 1", posted, err)
	}
	if posts := d.alertPosts(); !strings.Contains(posts[0], "Key record: #1") {
		t.Fatalf("alert: %q", posts[0])
	}
	if _, err := d.keys.Regenerate(t.Context(), keys.Developer{DiscordUserID: developerID}, "test"); err != nil {
		t.Fatal(err)
	}
	_, embeds, _ := d.answerOf(d.keyadmin(moderatorPerms, "info", userOption(developerID)))
	if !strings.Contains(embeds, "Usage of key record #2, last 30 days: 0 requests") {
		t.Errorf("/keyadmin info after a regenerate:%s\nwant the usage named by the new key's record", embeds)
	}
}

func TestUsageAlertIsPostedOnceAndItsButtonBlacklists(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	key := d.getKey(developerID)
	d.getKey(otherDevID)
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
	d.use(otherDevID, "/clan/search", models.KeyUsageCount{Requests: 500}, 0) // its usual volume
	for h := 2; h < 7*24; h += 2 {
		d.use(otherDevID, "/clan/search", models.KeyUsageCount{Requests: 500}, h)
	}
	ctx := context.Background()
	check := func(want int) {
		t.Helper()
		posted, err := d.bot.CheckUsageAlerts(ctx)
		if err != nil || posted != want {
			t.Fatalf("CheckUsageAlerts posted %d (%v), want %d", posted, err, want)
		}
	}
	check(1) // rate-limited, and a jump (a new key's 1000 requests): one post
	posts := d.alertPosts()
	if len(posts) != 1 || !strings.Contains(posts[0], "700 of its 1000 requests") || !strings.Contains(posts[0], "the 300 served are 20 minutes at its limit") ||
		!strings.Contains(posts[0], "1000 requests since") ||
		!strings.Contains(posts[0], "jumped, and it keeps being rate-limited") || !strings.Contains(posts[0], "<@"+developerID+">") {
		t.Fatalf("alerts: %q", posts)
	}
	for _, p := range posts {
		if strings.Contains(p, otherDevID) {
			t.Errorf("a key at its usual volume was alerted: %q", p)
		}
	}
	var sent struct {
		Components []struct {
			Components []struct {
				CustomID string `json:"custom_id"`
			} `json:"components"`
		} `json:"components"`
	}
	_ = json.Unmarshal(d.discord.RequestsTo("POST", "/channels/"+logChannelID+"/messages")[0].Body, &sent)
	if len(sent.Components) != 1 || sent.Components[0].Components[0].CustomID != "crowns:blacklist:"+developerID {
		t.Fatalf("alert button: %+v", sent)
	}

	d.clock.Advance(30 * time.Minute)
	check(0) // within the cool-down
	d.clock.Advance(6 * time.Hour)
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
	check(1) // the cool-down is over, and the key still floods

	// A member's press is refused; a moderator's opens the reason form,
	// whose submission blacklists.
	refused := d.component(developerID, 0, "crowns:blacklist:"+developerID)
	if body := string(d.callback(refused)); !strings.Contains(body, "Only moderators") || !strings.Contains(body, `"flags":64`) {
		t.Errorf("member's press answered %s", body)
	}
	form := d.component(moderatorID, moderatorPerms, "crowns:blacklist:"+developerID)
	if body := string(d.callback(form)); !strings.Contains(body, `"type":9`) || !strings.Contains(body, "crowns:blacklist-reason:"+developerID) ||
		!strings.Contains(body, `"title":"Blacklist developer `+developerID+`"`) {
		t.Errorf("moderator's press answered %s", body)
	}
	d.assertVerdict(key, nil)
	if text := d.answerText(d.submitReason(developerID, 0, "scraping")); !strings.Contains(text, "Only moderators") {
		t.Errorf("member's form: %q", text)
	}
	d.assertVerdict(key, nil)
	// Discord's required field takes spaces: a blank reason is refused.
	if text := d.answerText(d.submitReason(moderatorID, moderatorPerms, "   ")); !strings.Contains(text, "needs a reason") {
		t.Errorf("moderator's form without a reason: %q", text)
	}
	d.assertVerdict(key, nil)
	if text := d.answerText(d.submitReason(moderatorID, moderatorPerms, "scraping")); !strings.Contains(text, "scraping") {
		t.Errorf("moderator's form: %q", text)
	}
	d.assertVerdict(key, models.ErrKeyBlacklisted)
	// A second moderator's form, on the same alert, is told the first
	// blacklisting stands: nothing changes and nothing more is posted.
	if text := d.answerText(d.submitReason(otherModID, moderatorPerms, "second look")); !strings.Contains(text, "was already blacklisted (scraping, by <@"+moderatorID+">") {
		t.Errorf("second moderator's form: %q", text)
	}
	// Pressed later, the button asks no reason: the moderator is told the
	// first blacklisting at once.
	later := d.component(otherModID, moderatorPerms, "crowns:blacklist:"+developerID)
	var told struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data struct {
			Content string                 `json:"content"`
			Flags   discordgo.MessageFlags `json:"flags"`
		} `json:"data"`
	}
	if err := json.Unmarshal(d.callback(later), &told); err != nil {
		t.Fatal(err)
	}
	if told.Type != discordgo.InteractionResponseChannelMessageWithSource || told.Data.Flags != discordgo.MessageFlagsEphemeral ||
		!strings.Contains(told.Data.Content, "was already blacklisted (scraping, by <@"+moderatorID+">") {
		t.Errorf("a press after the blacklisting answered %d %q, want the first blacklisting and no form", told.Type, told.Data.Content)
	}
	if _, err := d.bot.PostPendingEvents(ctx); err != nil {
		t.Fatal(err)
	}
	info, err := d.keys.Info(ctx, developerID)
	if err != nil || info.BlacklistReason != "scraping" || info.BlacklistedBy != "discord:"+moderatorID {
		t.Errorf("blacklist record: %+v %v", info, err)
	}
	if posts := strings.Join(d.alertPosts(), "\n"); strings.Count(posts, "Developer blacklisted") != 1 {
		t.Errorf("log channel after two blacklistings: %q, want one blacklisting posted", posts)
	}
}

// alertPosts returns the embeds, as text, of each message posted in the
// log channel (which carry buttons MessageSend cannot decode).
func (d *desk) alertPosts() []string {
	d.t.Helper()
	var posts []string
	for _, r := range d.discord.RequestsTo("POST", "/channels/"+logChannelID+"/messages") {
		var sent struct {
			Embeds []*discordgo.MessageEmbed `json:"embeds"`
		}
		if err := json.Unmarshal(r.Body, &sent); err != nil {
			d.t.Fatal(err)
		}
		posts = append(posts, embedsText(sent.Embeds)+"\n"+sent.Embeds[0].Description)
	}
	return posts
}

// component presses a button as a member with permissions.
func (d *desk) component(userID string, permissions int64, customID string) *discordgo.Interaction {
	i := &discordgo.Interaction{
		ID: d.id(), AppID: discordtest.DefaultApplicationID, Type: discordgo.InteractionMessageComponent,
		GuildID: guildID, ChannelID: logChannelID, Token: "token-" + d.id(),
		Member: &discordgo.Member{User: &discordgo.User{ID: userID, Username: "user" + userID}, Permissions: permissions},
		Data:   discordgo.MessageComponentInteractionData{CustomID: customID, ComponentType: discordgo.ButtonComponent},
	}
	d.handle(func(ctx context.Context) {
		d.bot.HandleInteractionCreate(ctx, &discordgo.InteractionCreate{Interaction: i})
	})
	return i
}

// submitReason submits the blacklist reason form for the developer.
func (d *desk) submitReason(userID string, permissions int64, reason string) *discordgo.Interaction {
	i := &discordgo.Interaction{
		ID: d.id(), AppID: discordtest.DefaultApplicationID, Type: discordgo.InteractionModalSubmit,
		GuildID: guildID, ChannelID: logChannelID, Token: "token-" + d.id(),
		Member: &discordgo.Member{User: &discordgo.User{ID: userID, Username: "user" + userID}, Permissions: permissions},
		Data: discordgo.ModalSubmitInteractionData{CustomID: "crowns:blacklist-reason:" + developerID, Components: []discordgo.MessageComponent{
			&discordgo.ActionsRow{Components: []discordgo.MessageComponent{&discordgo.TextInput{CustomID: "reason", Value: reason}}},
		}},
	}
	d.handle(func(ctx context.Context) {
		d.bot.HandleInteractionCreate(ctx, &discordgo.InteractionCreate{Interaction: i})
	})
	return i
}

// callback is the body of an interaction's one callback.
func (d *desk) callback(i *discordgo.Interaction) []byte {
	d.t.Helper()
	callbacks := d.discord.RequestsTo("POST", "/interactions/"+i.ID+"/"+i.Token+"/callback")
	if len(callbacks) != 1 {
		d.t.Fatalf("interaction %s answered %d times", i.ID, len(callbacks))
	}
	return callbacks[0].Body
}

// A burst refused at once is not a key that stays rate-limited: most of
// 800 requests fired in seconds are refused, but the few served are
// minutes, not the ten of alertHeldFor, at the key's limit. Held at its
// limit longer, the key is alerted.
func TestABurstOfRefusalsIsNoAlert(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	d.getKey(developerID)
	for h := 2; h < 7*24; h += 2 {
		d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 200}, h) // its usual volume: no jump
	}
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 800, RateLimited: 754}, 0)
	if posted, err := d.bot.CheckUsageAlerts(t.Context()); err != nil || posted != 0 {
		t.Fatalf("CheckUsageAlerts after a burst posted %d (%v), want 0: 46 served are about 3 minutes at its limit", posted, err)
	}
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 200}, 0)
	if posted, err := d.bot.CheckUsageAlerts(t.Context()); err != nil || posted != 1 {
		t.Fatalf("CheckUsageAlerts posted %d (%v), want 1: 754 of 1000 refused, 246 served are 16 minutes at its limit", posted, err)
	}
	if posts := d.alertPosts(); len(posts) != 1 || !strings.Contains(posts[0], "keeps being rate-limited") || strings.Contains(posts[0], "jumped") {
		t.Fatalf("alerts: %q", posts)
	}
}

// TestUsageAlertCoolDownIsKeptInTheDatabase: an alert that Discord did not
// take is tried again at the next check, and one that was posted is not
// posted again within the cool-down by a restarted bot (a new bot and key
// service on the same database) either.
func TestUsageAlertCoolDownIsKeptInTheDatabase(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		secret := newSecret(t)
		discord := discordtest.New(t)
		first := newDesk(t, deskOptions{logChannel: logChannelID, db: db, discord: discord, secret: secret})
		first.getKey(developerID)
		first.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
		check := func(d *desk, want int) {
			t.Helper()
			posted, err := d.bot.CheckUsageAlerts(t.Context())
			if err != nil || posted != want {
				t.Fatalf("CheckUsageAlerts posted %d (%v), want %d", posted, err, want)
			}
		}

		discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + logChannelID + "/messages", Failure: discordtest.ServerError, Times: 1})
		if posted, err := first.bot.CheckUsageAlerts(t.Context()); err == nil || posted != 0 {
			t.Fatalf("CheckUsageAlerts with Discord failing posted %d (%v), want an error", posted, err)
		}
		check(first, 1) // the failed post did not start the cool-down

		second := newDesk(t, deskOptions{logChannel: logChannelID, db: db, discord: discord, secret: secret})
		second.clock.Set(first.clock.Now().Add(time.Hour))
		second.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
		check(second, 0) // restarted within the cool-down
		second.clock.Advance(6 * time.Hour)
		second.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
		check(second, 1)
		if n := len(discord.RequestsTo("POST", "/channels/"+logChannelID+"/messages")); n != 3 {
			t.Fatalf("%d alert posts sent, want 3: the failed one, and one before and after the restart's cool-down", n)
		}
	})
}

// TestAYoungKeysSteadyUseIsNoJump: a key hours old is measured against its
// own hours, not a week it did not exist for: steady use is no jump, ten
// times its rate is.
func TestAYoungKeysSteadyUseIsNoJump(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	d.getKey(developerID)
	d.clock.Advance(12 * time.Hour)
	for h := 2; h <= 11; h++ {
		d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000}, h)
	}
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 2000}, 0)
	if posted, err := d.bot.CheckUsageAlerts(t.Context()); err != nil || posted != 0 {
		t.Fatalf("CheckUsageAlerts posted %d (%v), want 0: 1000 an hour is what the key always did", posted, err)
	}
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 18000}, 0)
	if posted, err := d.bot.CheckUsageAlerts(t.Context()); err != nil || posted != 1 {
		t.Fatalf("CheckUsageAlerts posted %d (%v), want 1: 10,000 an hour against 1000", posted, err)
	}
	if posts := d.alertPosts(); !strings.Contains(posts[0], "20000 requests since") || !strings.Contains(posts[0], "against 909.1 an hour over the 11 hours it existed before") {
		t.Fatalf("alert: %q", posts[0])
	}
}
