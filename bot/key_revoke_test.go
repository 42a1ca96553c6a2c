package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// Ways to confirm a request to revoke, returning the answer.
var (
	pressRevoke     = func(d *desk) string { return d.answerText(d.pressButton(developerID, "revoke", developerID)) }
	slashRevokeNext = func(d *desk) string { return d.ask("slash", keyChannelID, developerID, "revoke") }
	textRevokeNext  = func(d *desk) string { return d.ask("text", keyChannelID, developerID, "revoke") }
)

func TestRevokeWithdrawsTheOwnKeyOnlyWhenConfirmedWithinSixtySeconds(t *testing.T) {
	tests := []struct {
		name    string
		via     string
		wait    time.Duration
		confirm func(d *desk) string
		want    string
		revoked bool
	}{
		{name: "button", via: "slash", confirm: pressRevoke, want: "your key is revoked", revoked: true},
		{name: "slash command again", via: "slash", confirm: slashRevokeNext, want: "your key is revoked", revoked: true},
		{name: "text command again", via: "text", confirm: textRevokeNext, want: "your key is revoked", revoked: true},
		{name: "command again at 60 s", via: "text", wait: 60 * time.Second, confirm: textRevokeNext, want: "your key is revoked", revoked: true},
		{name: "button at 61 s", via: "slash", wait: 61 * time.Second, confirm: pressRevoke, want: "confirmation has expired"},
		{name: "command again at 61 s asks again", via: "slash", wait: 61 * time.Second, confirm: slashRevokeNext, want: "This withdraws your developer key"},
		{name: "the regenerate button does not confirm it", via: "slash", confirm: pressTheButton, want: "You have asked for `/key revoke` since"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{logChannel: logChannelID})
			old := d.getKey(developerID)
			ask := d.ask(tt.via, keyChannelID, developerID, "revoke")
			if !strings.Contains(ask, "This withdraws your developer key") {
				t.Fatalf("first revoke answered %q, want a confirmation", ask)
			}
			if tt.via == "slash" {
				if _, _, button := d.answerOf(d.slash(otherDevID, keyChannelID, 0, "key", "get")); button {
					t.Fatal("an unrelated answer carries a button")
				}
			}
			d.assertVerdict(old, nil)

			d.clock.Advance(tt.wait)
			if answer := tt.confirm(d); !strings.Contains(answer, tt.want) {
				t.Errorf("confirmation answered %q, want %q", answer, tt.want)
			}
			if !tt.revoked {
				d.assertVerdict(old, nil)
				return
			}
			d.assertVerdict(old, models.ErrUnknownKey)
			if _, err := d.bot.PostPendingEvents(t.Context()); err != nil {
				t.Fatal(err)
			}
			posts := d.channelPosts(logChannelID)
			last := posts[len(posts)-1]
			if !strings.HasPrefix(last, "\nKey revoked\n") || !strings.Contains(last, "revoked by its owner") ||
				!strings.Contains(last, "By: <@"+developerID+">") {
				t.Errorf("log channel's last post = %q, want the revocation by its owner", last)
			}
			if dms := d.directMessages(developerID); len(dms) != 1 {
				t.Errorf("%d direct messages, want only the first key's", len(dms))
			}
			d.assertNewKeyWorks(developerID, old)
		})
	}
}

func TestRevokeButtonOnlyWorksForItsOwner(t *testing.T) {
	d := newDesk(t, deskOptions{})
	old := d.getKey(developerID)
	text, _, button := d.answerOf(d.slash(developerID, keyChannelID, 0, "key", "revoke"))
	if !button || !strings.Contains(text, "Revoke my key") {
		t.Fatalf("revoke answered %q (button %v), want a confirmation with its button", text, button)
	}
	for _, presser := range []string{otherDevID, moderatorID} {
		press := d.pressButton(presser, "revoke", developerID)
		replies := d.discord.RequestsTo("POST", "/interactions/"+press.ID+"/"+press.Token+"/callback")
		if len(replies) != 1 || !strings.Contains(string(replies[0].Body), "isn't for you") {
			t.Errorf("%s's press answered %v", presser, replies)
		}
	}
	d.assertVerdict(old, nil)
	if answer := d.answerText(d.pressButton(developerID, "revoke", developerID)); !strings.Contains(answer, "your key is revoked") {
		t.Errorf("the owner's press answered %q", answer)
	}
	d.assertVerdict(old, models.ErrUnknownKey)
}

func TestRevokeWithoutKeyOrWhenBlacklistedChangesNothing(t *testing.T) {
	d := newDesk(t, deskOptions{})
	if answer := d.ask("text", keyChannelID, developerID, "revoke"); !strings.Contains(answer, "don't have a developer key yet") {
		t.Errorf("without a key: %q", answer)
	}
	d.getKey(otherDevID)
	d.keyadmin(moderatorPerms, "blacklist", userOption(otherDevID), stringOption("reason", "scraping"))
	if answer := d.ask("slash", keyChannelID, otherDevID, "revoke"); !strings.Contains(answer, "blacklisted") {
		t.Errorf("blacklisted: %q", answer)
	}
	if answer := d.ask("slash", otherChannelID, developerID, "revoke"); !strings.Contains(answer, "<#"+keyChannelID+">") {
		t.Errorf("outside the key channel: %q", answer)
	}
}

// get, regenerate and revoke share one cool-down per member: cycling
// through them posts to the log channel no more often than repeating
// one. /key stats has its own.
func TestCoolDownLimitsTheKeyCommandsTogetherPerMember(t *testing.T) {
	for _, via := range vias {
		t.Run(via, func(t *testing.T) {
			d := newDesk(t, deskOptions{coolDown: 30 * time.Second})
			d.ask(via, keyChannelID, developerID, "get")
			for _, command := range []string{"get", "regenerate", "revoke"} {
				if answer := d.ask(via, keyChannelID, developerID, command); !strings.Contains(answer, "wait 30 seconds") {
					t.Errorf("%s at once after a get: %q, want to wait 30 seconds", command, answer)
				}
			}
			if dms := d.directMessages(developerID); len(dms) != 1 {
				t.Errorf("%d direct messages, want 1", len(dms))
			}
			// Another member is not held back.
			if answer := d.ask(via, keyChannelID, otherDevID, "get"); !strings.Contains(answer, "direct messages") {
				t.Errorf("another member's get: %q", answer)
			}
			d.clock.Advance(30 * time.Second)
			if answer := d.ask(via, keyChannelID, developerID, "regenerate"); !strings.Contains(answer, "every older key stops working") {
				t.Errorf("regenerate 30 s after get: %q", answer)
			}
			// Confirming the pending request is not a new use.
			d.clock.Advance(5 * time.Second)
			if answer := d.ask(via, keyChannelID, developerID, "regenerate"); !strings.Contains(answer, "new key is in your direct messages") {
				t.Errorf("confirming regenerate: %q", answer)
			}
			if answer := d.ask(via, keyChannelID, developerID, "revoke"); !strings.Contains(answer, "wait 25 seconds") {
				t.Errorf("a revoke 5 s after the regenerate: %q, want to wait 25 seconds", answer)
			}
			d.clock.Advance(25 * time.Second)
			d.ask(via, keyChannelID, developerID, "revoke")
			d.ask(via, keyChannelID, developerID, "revoke")
			d.clock.Advance(29*time.Second + time.Millisecond)
			if answer := d.ask(via, keyChannelID, developerID, "get"); !strings.Contains(answer, "wait 1 second") {
				t.Errorf("get at 29 s after a revoke: %q, want to wait 1 second", answer)
			}
			d.clock.Advance(time.Second)
			if answer := d.ask(via, keyChannelID, developerID, "get"); !strings.Contains(answer, "on its way") {
				t.Errorf("get at 30 s after a revoke: %q, want a new key", answer)
			}
		})
	}
}

// /key stats has a cool-down of its own: asked right after a key command,
// it answers; asked twice, the second waits. Asked without a key, it
// holds nothing back.
func TestKeyStatsHasACoolDownOfItsOwn(t *testing.T) {
	d := newDesk(t, deskOptions{coolDown: 30 * time.Second})
	if answer := d.ask("slash", keyChannelID, developerID, "stats"); !strings.Contains(answer, "don't have a developer key yet") {
		t.Fatalf("stats without a key: %q", answer)
	}
	d.getKey(developerID)
	if answer := d.ask("slash", keyChannelID, developerID, "stats"); strings.Contains(answer, "wait") {
		t.Fatalf("stats right after get (and a stats without a key): %q, want the usage", answer)
	}
	answer := d.ask("slash", keyChannelID, developerID, "stats")
	if !strings.Contains(answer, "wait 30 seconds before using this command again.") || strings.Contains(answer, "regenerate") {
		t.Fatalf("stats twice at once: %q, want to wait 30 seconds, of stats alone", answer)
	}
}

// A member has one key change pending at most: asking for the other
// replaces it, so regenerate and revoke asked for in turn cannot both be
// confirmed. The replaced request's button says so, and changes nothing.
func TestAKeyChangeAskedForReplacesTheOtherPending(t *testing.T) {
	t.Run("buttons", func(t *testing.T) {
		d := newDesk(t, deskOptions{coolDown: 30 * time.Second})
		key := d.getKey(developerID)
		d.clock.Advance(30 * time.Second)
		d.ask("slash", keyChannelID, developerID, "regenerate") // asks
		d.clock.Advance(30 * time.Second)
		d.ask("slash", keyChannelID, developerID, "revoke") // asks, in its place
		d.clock.Advance(time.Second)
		if text := d.answerText(d.press(developerID, developerID)); !strings.Contains(text, "You have asked for `/key revoke` since") {
			t.Fatalf("the replaced regenerate's button: %q", text)
		}
		d.assertVerdict(key, nil)
		if text := d.answerText(d.pressButton(developerID, "revoke", developerID)); !strings.Contains(text, "your key is revoked") {
			t.Fatalf("the revoke's button: %q", text)
		}
		if dms := d.directMessages(developerID); len(dms) != 1 {
			t.Fatalf("%d direct messages, want the first key's only", len(dms))
		}
	})
	t.Run("text", func(t *testing.T) {
		d := newDesk(t, deskOptions{coolDown: 30 * time.Second})
		d.getKey(developerID)
		d.clock.Advance(30 * time.Second)
		d.ask("text", keyChannelID, developerID, "regenerate") // asks
		d.clock.Advance(30 * time.Second)
		d.ask("text", keyChannelID, developerID, "revoke") // asks, in its place
		d.clock.Advance(time.Second)
		if answer := d.ask("text", keyChannelID, developerID, "regenerate"); !strings.Contains(answer, "wait 29 seconds before your next key command") {
			t.Fatalf("regenerate again 1 s after a revoke was asked for: %q, want a new request, to wait 29 seconds", answer)
		}
		if answer := d.ask("text", keyChannelID, developerID, "revoke"); !strings.Contains(answer, "your key is revoked") {
			t.Fatalf("confirming the revoke: %q", answer)
		}
	})
}

// leakedAt is where the tests' leaked keys were found published.
const leakedAt = "https://github.com/someone/app/blob/main/config.js"

// revokeLeakedElsewhere revokes live keys as a leaked-key report does,
// through a keys service of another process (on the desk's clock).
func (d *desk) revokeLeakedElsewhere(raws ...string) {
	d.t.Helper()
	other, err := keys.NewService(d.db, keys.Config{Secret: d.secret, Clock: d.clock})
	if err != nil {
		d.t.Fatal(err)
	}
	for _, raw := range raws {
		if revoked, err := other.RevokeLeaked(d.t.Context(), raw, leakedAt); err != nil || !revoked {
			d.t.Fatalf("RevokeLeaked = %v, %v", revoked, err)
		}
	}
}

// A key revoked by a leaked-key report, in any process, reaches the log
// channel with where it was found, and its owner by direct message.
func TestLeakedKeyRevocationIsPostedAndToldToItsOwner(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	leaked := d.getKey(developerID)
	closed := d.getKey(otherDevID)
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + discordtest.DMChannelID(otherDevID) + "/messages", Failure: discordtest.DMClosed})
	d.revokeLeakedElsewhere(leaked, closed)
	if _, err := d.bot.PostPendingEvents(t.Context()); err != nil {
		t.Fatal(err)
	}
	if told, err := d.bot.TellLeakedKeyOwners(t.Context()); err != nil || told != 1 {
		t.Fatalf("TellLeakedKeyOwners = %d, %v; want 1 (the other member's messages are closed)", told, err)
	}
	posts := d.channelPosts(logChannelID)
	if len(posts) != 4 {
		t.Fatalf("%d posts in the log channel, want 4 (two keys issued, two revoked)", len(posts))
	}
	for _, post := range posts[2:] {
		if !strings.HasPrefix(post, "\nKey revoked\n") || !strings.Contains(post, "reported leaked at "+leakedAt) ||
			!strings.Contains(post, "a leaked-key report") {
			t.Errorf("log channel post = %q", post)
		}
	}
	if !strings.Contains(d.logs.String(), "not told of the leaked key") {
		t.Error("a member whose direct messages are closed was not logged")
	}
	dms := d.directMessages(developerID)
	if len(dms) != 2 || !strings.Contains(dms[1], "found published at "+leakedAt) || !strings.Contains(dms[1], "/key get") ||
		strings.Contains(dms[1], "crw_") {
		t.Fatalf("direct messages = %q, want the key and then the leak notice", dms)
	}
	// Reading again tells no one twice.
	if _, err := d.bot.PostPendingEvents(t.Context()); err != nil {
		t.Fatal(err)
	}
	if told, err := d.bot.TellLeakedKeyOwners(t.Context()); err != nil || told != 0 {
		t.Errorf("TellLeakedKeyOwners again = %d, %v", told, err)
	}
	if len(d.directMessages(developerID)) != 2 {
		t.Error("the owner was told twice")
	}
	d.assertVerdict(leaked, models.ErrUnknownKey)
	d.assertVerdict(closed, models.ErrUnknownKey)
}

// A leak notice Discord could not take for a passing reason (a 500) is
// sent by a later call, after the ones before it, and no one is told
// twice; a member whose direct messages are closed is passed over.
func TestALeakNoticeThatFailedIsSentLater(t *testing.T) {
	d := newDesk(t, deskOptions{})
	closed := d.getKey(otherDevID)
	leaked := d.getKey(developerID)
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + discordtest.DMChannelID(otherDevID) + "/messages", Failure: discordtest.DMClosed})
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + discordtest.DMChannelID(developerID) + "/messages", Failure: discordtest.ServerError, Times: 1})
	d.revokeLeakedElsewhere(closed, leaked)
	// The fake records every message asked for, the refused one too.
	notices := func() int {
		return strings.Count(strings.Join(d.directMessages(developerID), "\n"), "found published at "+leakedAt)
	}
	if told, err := d.bot.TellLeakedKeyOwners(t.Context()); err == nil || told != 0 || notices() != 1 {
		t.Fatalf("TellLeakedKeyOwners with Discord failing = %d, %v, %d notices asked; want 0, the failure, 1", told, err, notices())
	}
	if told, err := d.bot.TellLeakedKeyOwners(t.Context()); err != nil || told != 1 || notices() != 2 {
		t.Fatalf("TellLeakedKeyOwners once Discord answers = %d, %v, %d notices asked; want 1, nil, 2", told, err, notices())
	}
	if told, err := d.bot.TellLeakedKeyOwners(t.Context()); err != nil || told != 0 || notices() != 2 {
		t.Errorf("TellLeakedKeyOwners a third time = %d, %v, %d notices asked; want 0, nil, 2", told, err, notices())
	}
	if strings.Count(d.logs.String(), "not told of the leaked key") != 1 {
		t.Errorf("the member whose direct messages are closed was not logged once:\n%s", d.logs.String())
	}
}

// Without a log channel the owner of a leaked key is told all the same;
// a revocation older than a day is not told (a bot started long after).
func TestLeakedKeyOwnerIsToldWithoutALogChannel(t *testing.T) {
	d := newDesk(t, deskOptions{})
	old := d.getKey(otherDevID)
	leaked := d.getKey(developerID)
	d.revokeLeakedElsewhere(old)
	d.clock.Advance(25 * time.Hour)
	d.revokeLeakedElsewhere(leaked)
	if told, err := d.bot.TellLeakedKeyOwners(t.Context()); err != nil || told != 1 {
		t.Fatalf("TellLeakedKeyOwners = %d, %v; want 1", told, err)
	}
	if dms := d.directMessages(developerID); len(dms) != 2 || !strings.Contains(dms[1], "found published at "+leakedAt) {
		t.Errorf("direct messages = %q, want the key and then the leak notice", dms)
	}
	if dms := d.directMessages(otherDevID); len(dms) != 1 {
		t.Errorf("a revocation of 25 hours ago was told: %q", dms)
	}
	if told, err := d.bot.TellLeakedKeyOwners(t.Context()); err != nil || told != 0 {
		t.Errorf("TellLeakedKeyOwners again = %d, %v", told, err)
	}
}

// Run itself tells the owner of a leaked key when there is no log
// channel: its event loop reads the leak notices whatever else it does.
func TestRunTellsLeakedKeyOwnersWithoutALogChannel(t *testing.T) {
	d := newDesk(t, deskOptions{})
	leaked := d.getKey(developerID)
	d.revokeLeakedElsewhere(leaked)
	d.discord.SetMembers(developerID)
	d.discord.SetGateway(discordtest.GatewayScript{GuildIDs: []string{guildID}})
	stop := d.run()
	dms := d.discord.Await(t, "POST", "/channels/"+discordtest.DMChannelID(developerID)+"/messages", 2, awaitTimeout)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if body := string(dms[1].Body); !strings.Contains(body, "found published at "+leakedAt) {
		t.Errorf("second direct message = %s, want the leak notice", body)
	}
}

// A log channel Discord refuses for good (a 403: the bot lost its
// permission there) keeps its own wait between tries; the owner of a key
// a leak report revokes meanwhile is told at once all the same, with the
// bot's clock standing still.
func TestRunTellsLeakedKeyOwnersWhileTheLogChannelIsRefused(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	logPosts := "/channels/" + logChannelID + "/messages"
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: logPosts, Failure: discordtest.Forbidden})
	leaked := d.getKey(developerID)
	d.discord.SetMembers(developerID)
	d.discord.SetGateway(discordtest.GatewayScript{GuildIDs: []string{guildID}})
	stop := d.run()
	// The key's issue could not be posted: the log channel waits now.
	awaitLog(t, d, "cannot post key events to the log channel")

	if revoked, err := d.keys.RevokeLeaked(t.Context(), leaked, leakedAt); err != nil || !revoked {
		t.Fatalf("RevokeLeaked = %v, %v", revoked, err)
	}
	dms := d.discord.Await(t, "POST", "/channels/"+discordtest.DMChannelID(developerID)+"/messages", 2, awaitTimeout)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if body := string(dms[1].Body); !strings.Contains(body, "found published at "+leakedAt) {
		t.Errorf("second direct message = %s, want the leak notice", body)
	}
	if posts := d.discord.RequestsTo("POST", logPosts); len(posts) != 1 {
		t.Errorf("the refused log channel was tried %d times, want once: it waits on the clock", len(posts))
	}
}
