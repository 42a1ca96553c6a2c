package bot_test

import (
	"strings"
	"testing"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestEveryTransitionIsPostedToTheLogChannelWithoutTheKey(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	var issuedKeys []string
	issuedKeys = append(issuedKeys, d.getKey(developerID))
	d.slash(developerID, keyChannelID, 0, "key", "regenerate")
	d.press(developerID, developerID)
	issuedKeys = append(issuedKeys, d.keyFromLastDM(developerID))
	d.leave(developerID)
	d.getKey(developerID) // re-enabled
	d.keyadmin(moderatorPerms, "revoke", userOption(developerID), stringOption("reason", "leaked in a repository"))
	d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", "scraping"))
	d.keyadmin(moderatorPerms, "unblacklist", userOption(developerID))
	// A transition by another process (the command line) on the same
	// database reaches the log channel through the outbox too.
	other, err := keys.NewService(d.db, keys.Config{Secret: newSecret(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Blacklist(t.Context(), otherDevID, "abuse", "cli"); err != nil {
		t.Fatal(err)
	}

	posted, err := d.bot.PostPendingEvents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ title, has string }{
		{"Key issued", "<@" + developerID + ">"},
		{"Key regenerated", "replaces key"},
		{"Key disabled", "left server"},
		{"Key re-enabled", "<@" + developerID + ">"},
		{"Key revoked", "leaked in a repository"},
		{"Developer blacklisted", "scraping"},
		{"Developer unblacklisted", "<@" + moderatorID + ">"},
		{"Developer blacklisted", "the crowns command line"},
	}
	posts := d.channelPosts(logChannelID)
	if posted != len(want) || len(posts) != len(want) {
		t.Fatalf("posted %d (%d requests), want %d: %q", posted, len(posts), len(want), posts)
	}
	for i, w := range want {
		if !strings.HasPrefix(posts[i], "\n"+w.title+"\n") || !strings.Contains(posts[i], w.has) {
			t.Errorf("post %d = %s, want title %q and %q", i, posts[i], w.title, w.has)
		}
		if strings.Contains(posts[i], "crw_") {
			t.Errorf("post %d holds a key", i)
		}
		for _, key := range issuedKeys {
			if strings.Contains(posts[i], key) {
				t.Errorf("post %d holds a key", i)
			}
		}
	}
	for _, r := range d.discord.RequestsTo("POST", "/channels/"+logChannelID+"/messages") {
		if !strings.Contains(string(r.Body), `"allowed_mentions":{"parse":[]`) {
			t.Errorf("a log post may ping someone: %s", r.Body)
		}
	}
	if again, err := d.bot.PostPendingEvents(t.Context()); err != nil || again != 0 {
		t.Errorf("a second pass posted %d, %v; want nothing", again, err)
	}
}

func TestFailedLogPostsAreRetriedNotLost(t *testing.T) {
	for _, failure := range []discordtest.Failure{discordtest.Forbidden, discordtest.NotFound, discordtest.NotTextChannel, discordtest.ServerError} {
		t.Run(failure.String(), func(t *testing.T) {
			d := newDesk(t, deskOptions{logChannel: logChannelID})
			d.getKey(developerID)
			d.getKey(otherDevID)
			d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + logChannelID + "/messages", Failure: failure, Skip: 1})
			posted, err := d.bot.PostPendingEvents(t.Context())
			if err == nil || posted != 1 {
				t.Fatalf("with the log channel failing: posted %d, err %v; want 1 and an error", posted, err)
			}
			d.discord.Heal()
			posted, err = d.bot.PostPendingEvents(t.Context())
			if err != nil || posted != 1 {
				t.Fatalf("after healing: posted %d, err %v; want the 1 left", posted, err)
			}
			posts := d.channelPosts(logChannelID)
			// The failed attempt is recorded too: first, failed, retried.
			if len(posts) != 3 || !strings.Contains(posts[0], developerID) || !strings.Contains(posts[2], otherDevID) || posts[1] != posts[2] {
				t.Errorf("posts = %q", posts)
			}
		})
	}
}

func TestOutboxPositionSurvivesARestart(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		secret := newSecret(t)
		discord := discordtest.New(t)
		first := newDesk(t, deskOptions{logChannel: logChannelID, db: db, discord: discord, secret: secret})
		first.getKey(developerID)
		first.getKey(otherDevID)
		if posted, err := first.bot.PostPendingEvents(t.Context()); err != nil || posted != 2 {
			t.Fatalf("first bot posted %d, %v", posted, err)
		}

		// A new process: a new bot and keys service on the same database.
		second := newDesk(t, deskOptions{logChannel: logChannelID, db: db, discord: discord, secret: secret})
		if posted, err := second.bot.PostPendingEvents(t.Context()); err != nil || posted != 0 {
			t.Fatalf("after a restart the bot posted %d again, %v", posted, err)
		}
		second.leave(developerID)
		if posted, err := second.bot.PostPendingEvents(t.Context()); err != nil || posted != 1 {
			t.Fatalf("after a restart the bot posted %d new events, %v; want 1", posted, err)
		}
		posts := second.channelPosts(logChannelID)
		if len(posts) != 3 || !strings.Contains(posts[2], "Key disabled") {
			t.Errorf("log channel got %q", posts)
		}
	})
}

func TestWithoutLogChannelNothingIsPosted(t *testing.T) {
	d := newDesk(t, deskOptions{})
	d.getKey(developerID)
	if posted, err := d.bot.PostPendingEvents(t.Context()); err != nil || posted != 0 {
		t.Errorf("posted %d, %v", posted, err)
	}
	if position, err := d.db.BotCursorPosition(t.Context(), "audit-log"); err != nil || position != 0 {
		t.Errorf("cursor moved to %d, %v", position, err)
	}
}

// A key event whose post Discord refuses for its body (400) would be
// refused however often it is sent: it is logged with the event and
// passed over, and the events after it are posted, where waiting for it
// would hold back every later post for good.
func TestALogPostRefusedForItsBodyIsPassedOver(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	d.getKey(developerID)
	d.getKey(otherDevID)
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + logChannelID + "/messages", Failure: discordtest.InvalidFormBody, Times: 1})
	posted, err := d.bot.PostPendingEvents(t.Context())
	if err != nil || posted != 1 {
		t.Fatalf("posted %d, err %v; want the second event posted past the refused first", posted, err)
	}
	if posts := d.channelPosts(logChannelID); len(posts) != 2 || !strings.Contains(posts[1], otherDevID) {
		t.Errorf("posts = %q, want the refused one and then the other developer's", posts)
	}
	if logs := d.logs.String(); !strings.Contains(logs, "passed over") || !strings.Contains(logs, "event=1") || !strings.Contains(logs, "HTTP 400, code 50035") {
		t.Errorf("logs:\n%s\nwant the refused event and Discord's answer", logs)
	}
	if again, err := d.bot.PostPendingEvents(t.Context()); err != nil || again != 0 {
		t.Errorf("a later call posted %d (%v), want nothing: the refused event is not tried again", again, err)
	}
}
