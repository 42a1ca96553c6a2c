package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/models"
)

// closedDirectMessages makes Discord refuse the developer's direct
// messages, as when they do not accept them from server members.
var closedDirectMessages = discordtest.Rule{Method: "POST", Path: "/channels/" + discordtest.DMChannelID(developerID) + "/messages", Failure: discordtest.DMClosed}

// A key the bot could not send is owed to the member: the /key get the
// answer asks for, once direct messages are open, does not wait for the
// cool-down. The other key commands still do.
func TestAKeyNotSentCanBeAskedForAgainAtOnce(t *testing.T) {
	for _, via := range vias {
		t.Run("get/"+via, func(t *testing.T) {
			d := newDesk(t, deskOptions{coolDown: 30 * time.Second})
			d.discord.Fail(closedDirectMessages)
			if answer := d.ask(via, keyChannelID, developerID, "get"); !strings.Contains(answer, "again") {
				t.Fatalf("get with direct messages closed: %q", answer)
			}
			d.clock.Advance(5 * time.Second)
			if answer := d.ask(via, keyChannelID, developerID, "regenerate"); !strings.Contains(answer, "wait 25 seconds") {
				t.Errorf("regenerate while a key is owed: %q, want the cool-down", answer)
			}
			d.clock.Advance(5 * time.Second)
			d.discord.Heal()
			if answer := d.ask(via, keyChannelID, developerID, "get"); !strings.Contains(answer, "sent your key") {
				t.Fatalf("get 10 s later, direct messages open: %q, want the key sent", answer)
			}
			d.assertVerdict(d.keyFromLastDM(developerID), nil)
			// Sent: the debt is settled, and the cool-down holds again.
			d.clock.Advance(time.Second)
			if answer := d.ask(via, keyChannelID, developerID, "get"); !strings.Contains(answer, "wait 19 seconds") {
				t.Errorf("get once more: %q, want to wait 19 seconds", answer)
			}
		})
	}
	// The owed get is one: sent or not, the next waits, so direct
	// messages that stay closed open no way round the cool-down.
	t.Run("once", func(t *testing.T) {
		d := newDesk(t, deskOptions{coolDown: 30 * time.Second})
		d.discord.Fail(closedDirectMessages)
		d.ask("slash", keyChannelID, developerID, "get")
		d.clock.Advance(5 * time.Second)
		if answer := d.ask("slash", keyChannelID, developerID, "get"); strings.Contains(answer, "wait") {
			t.Fatalf("the owed get: %q, want it let through", answer)
		}
		d.clock.Advance(time.Second)
		if answer := d.ask("slash", keyChannelID, developerID, "get"); !strings.Contains(answer, "wait 24 seconds") {
			t.Errorf("a get after the owed one, direct messages still closed: %q, want the cool-down", answer)
		}
	})
	// The owed get only reminds: a key revoked meanwhile leaves nothing
	// to send, and a new key would be a change, posted to the log
	// channel, within the cool-down.
	t.Run("revoked meanwhile", func(t *testing.T) {
		d := newDesk(t, deskOptions{coolDown: 30 * time.Second, logChannel: logChannelID})
		d.discord.Fail(closedDirectMessages)
		d.ask("slash", keyChannelID, developerID, "get")
		d.keyadmin(moderatorPerms, "revoke", userOption(developerID))
		d.clock.Advance(2 * time.Second)
		if answer := d.ask("slash", keyChannelID, developerID, "get"); !strings.Contains(answer, "wait 28 seconds") {
			t.Errorf("a get 2 s later, the owed key revoked: %q, want the cool-down", answer)
		}
		if _, err := d.bot.PostPendingEvents(t.Context()); err != nil {
			t.Fatal(err)
		}
		if posts := strings.Join(d.channelPosts(logChannelID), "\n"); strings.Count(posts, "Key issued") != 1 {
			t.Errorf("log channel: %q, want one key issued", posts)
		}
	})
	t.Run("regenerate", func(t *testing.T) {
		d := newDesk(t, deskOptions{coolDown: 30 * time.Second})
		old := d.getKey(developerID)
		d.clock.Advance(30 * time.Second)
		d.ask("slash", keyChannelID, developerID, "regenerate")
		d.discord.Fail(closedDirectMessages)
		if answer := d.answerText(d.press(developerID, developerID)); !strings.Contains(answer, "Every older key already stopped working") {
			t.Fatalf("regenerate confirmed, direct messages closed: %q", answer)
		}
		d.assertVerdict(old, models.ErrUnknownKey)
		d.clock.Advance(8 * time.Second)
		d.discord.Heal()
		if answer := d.ask("slash", keyChannelID, developerID, "get"); !strings.Contains(answer, "direct messages") || strings.Contains(answer, "wait") {
			t.Fatalf("get 8 s after the new key could not be sent: %q, want it sent", answer)
		}
		fresh := d.keyFromLastDM(developerID)
		if fresh == old {
			t.Fatal("the old key was sent")
		}
		d.assertVerdict(fresh, nil)
	})
}

// A regenerate or revoke that finds no key to change answers why, posts
// nothing, and holds back none of the member's key commands: the /key get
// it points to answers at once.
func TestAKeyChangeWithNothingToChangeUsesNoCoolDown(t *testing.T) {
	for _, via := range vias {
		for _, command := range []string{"regenerate", "revoke"} {
			t.Run(via+"/"+command, func(t *testing.T) {
				d := newDesk(t, deskOptions{coolDown: 30 * time.Second})
				if answer := d.ask(via, keyChannelID, developerID, command); !strings.Contains(answer, "don't have a developer key yet") {
					t.Fatalf("%s without a key: %q", command, answer)
				}
				d.clock.Advance(2 * time.Second)
				if answer := d.ask(via, keyChannelID, developerID, "get"); !strings.Contains(answer, "on its way") {
					t.Errorf("get 2 s later: %q, want a key", answer)
				}
			})
		}
	}
}

// A confirmation button pressed after its request was confirmed (by the
// command again) says what was done, not that it expired.
func TestAButtonPressedAfterItsRequestWasConfirmedSaysSo(t *testing.T) {
	tests := []struct {
		command string
		press   func(d *desk) string
		want    string
	}{
		{"revoke", pressRevoke, "Your key was already revoked when you confirmed `/key revoke`"},
		{"regenerate", func(d *desk) string { return d.answerText(d.press(developerID, developerID)) }, "Your key was already replaced when you confirmed `/key regenerate`"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			old := d.getKey(developerID)
			d.ask("slash", keyChannelID, developerID, tt.command)
			d.clock.Advance(2 * time.Second)
			d.ask("slash", keyChannelID, developerID, tt.command) // confirms
			d.assertVerdict(old, models.ErrUnknownKey)
			dms := len(d.directMessages(developerID))
			d.clock.Advance(2 * time.Second)
			if answer := tt.press(d); !strings.Contains(answer, tt.want) {
				t.Errorf("the button pressed after: %q, want %q", answer, tt.want)
			}
			if len(d.directMessages(developerID)) != dms {
				t.Error("the late press changed the key again")
			}
			// After the window, the button has expired like any other.
			d.clock.Advance(time.Minute)
			if answer := tt.press(d); !strings.Contains(answer, "expired") {
				t.Errorf("the button pressed a minute later: %q", answer)
			}
		})
	}
}

// A confirmation whose change failed (the member blacklisted meanwhile,
// or the database gone) is not remembered as done: its button, pressed
// later, does not claim the change was made.
func TestAButtonOfAFailedChangeDoesNotSayItWasDone(t *testing.T) {
	blacklist := func(d *desk) {
		d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", "scraping"))
	}
	closeDatabase := func(d *desk) {
		if err := d.db.Close(); err != nil {
			d.t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name, command string
		meantime      func(d *desk)
		press         func(d *desk) string
	}{
		{"regenerate, blacklisted", "regenerate", blacklist, func(d *desk) string { return d.answerText(d.press(developerID, developerID)) }},
		{"regenerate, database gone", "regenerate", closeDatabase, func(d *desk) string { return d.answerText(d.press(developerID, developerID)) }},
		{"revoke, database gone", "revoke", closeDatabase, pressRevoke},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			d.getKey(developerID)
			d.ask("slash", keyChannelID, developerID, tt.command)
			tt.meantime(d)
			if answer := d.ask("slash", keyChannelID, developerID, tt.command); strings.Contains(answer, "Done") || strings.Contains(answer, "new key") {
				t.Fatalf("confirming: %q, want a refusal", answer)
			}
			if answer := tt.press(d); strings.Contains(answer, "already") {
				t.Errorf("the button after the refused change: %q, want no claim that it was done", answer)
			}
		})
	}
}

// /key stats tells a member without a key in use why: never had one,
// revoked, or blacklisted.
func TestKeyStatsWithoutAKeyInUseSaysWhy(t *testing.T) {
	d := newDesk(t, deskOptions{})
	if answer := d.ask("slash", keyChannelID, developerID, "stats"); !strings.Contains(answer, "don't have a developer key yet") {
		t.Errorf("never had a key: %q", answer)
	}
	d.getKey(developerID)
	d.ask("slash", keyChannelID, developerID, "revoke")
	d.ask("slash", keyChannelID, developerID, "revoke")
	if answer := d.ask("slash", keyChannelID, developerID, "stats"); !strings.Contains(answer, "Your last developer key was revoked") {
		t.Errorf("after revoking: %q", answer)
	}
	d.getKey(otherDevID)
	d.keyadmin(moderatorPerms, "blacklist", userOption(otherDevID), stringOption("reason", "scraping"))
	if answer := d.ask("slash", keyChannelID, otherDevID, "stats"); !strings.Contains(answer, "can't get a developer key") {
		t.Errorf("blacklisted: %q", answer)
	}
}
