package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/bot/discordtest"
)

func TestDiscordFailuresGetAPoliteAnswerAndALogLine(t *testing.T) {
	dmSend := "/channels/" + discordtest.DMChannelID(developerID) + "/messages"
	tests := []struct {
		name string
		via  string
		rule discordtest.Rule
		// wantAnswer is in the answer, "" when the answer itself cannot
		// be delivered.
		wantAnswer string
		wantLog    string
		// delivered says whether the key reaches the developer anyway.
		delivered bool
		// dmAttempts, when set, is how many times the DM is sent.
		dmAttempts int
	}{
		{name: "direct message 500", via: "slash", rule: discordtest.Rule{Method: "POST", Path: dmSend, Failure: discordtest.ServerError},
			wantAnswer: "try `/key get` again in a few minutes", wantLog: "HTTP 500"},
		{name: "direct message 500, text", via: "text", rule: discordtest.Rule{Method: "POST", Path: dmSend, Failure: discordtest.ServerError},
			wantAnswer: "try `!key get` again in a few minutes", wantLog: "HTTP 500"},
		{name: "direct message 403, not code 50007", via: "slash", rule: discordtest.Rule{Method: "POST", Path: dmSend, Failure: discordtest.Forbidden},
			wantAnswer: "try `/key get` again in a few minutes", wantLog: "HTTP 403, code 50013"},
		{name: "direct message 403, not code 50007, text", via: "text", rule: discordtest.Rule{Method: "POST", Path: dmSend, Failure: discordtest.Forbidden},
			wantAnswer: "try `!key get` again in a few minutes", wantLog: "HTTP 403, code 50013"},
		{name: "opening the direct message 403, not code 50007", via: "slash", rule: discordtest.Rule{Method: "POST", Path: "/users/@me/channels", Failure: discordtest.Forbidden},
			wantAnswer: "try `/key get` again in a few minutes", wantLog: "HTTP 403, code 50013"},
		{name: "opening the direct message 404", via: "slash", rule: discordtest.Rule{Method: "POST", Path: "/users/@me/channels", Failure: discordtest.NotFound},
			wantAnswer: "again in a few minutes", wantLog: "HTTP 404"},
		{name: "direct message rate limited once", via: "slash", rule: discordtest.Rule{Method: "POST", Path: dmSend, Failure: discordtest.RateLimited, Times: 1},
			wantAnswer: "check your direct messages", delivered: true, dmAttempts: 2},
		{name: "channel answer 403", via: "text", rule: discordtest.Rule{Method: "POST", Path: "/channels/" + keyChannelID + "/messages", Failure: discordtest.Forbidden},
			wantLog: "HTTP 403, code 50013", delivered: true},
		{name: "channel answer 500", via: "text", rule: discordtest.Rule{Method: "POST", Path: "/channels/" + keyChannelID + "/messages", Failure: discordtest.ServerError},
			wantLog: "HTTP 500", delivered: true},
		{name: "deleting the command 403", via: "text", rule: discordtest.Rule{Method: "DELETE", Path: "/channels/*/messages/*", Failure: discordtest.Forbidden},
			wantAnswer: "check your direct messages", wantLog: "Manage Messages", delivered: true},
		{name: "slash answer 500", via: "slash", rule: discordtest.Rule{Method: "PATCH", Path: "/webhooks/*/*/messages/*", Failure: discordtest.ServerError},
			wantLog: "answer a slash command", delivered: true},
		{name: "acknowledging 500", via: "slash", rule: discordtest.Rule{Method: "POST", Path: callbacks, Failure: discordtest.ServerError},
			wantLog: "acknowledge a slash command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			d.discord.Fail(tt.rule)
			var answer string
			if tt.via == "slash" {
				i := d.slash(developerID, keyChannelID, 0, "key", "get")
				if tt.rule.Path != callbacks { // else sent again, and refused each time
					d.assertEphemeral(i)
				}
				if tt.wantAnswer != "" {
					answer = d.answerText(i)
				}
			} else {
				d.say(developerID, keyChannelID, "!key get")
				if posts := d.channelPosts(keyChannelID); len(posts) > 0 {
					answer = posts[len(posts)-1]
				}
			}
			if !strings.Contains(answer, tt.wantAnswer) {
				t.Errorf("answer = %q, want %q", answer, tt.wantAnswer)
			}
			if strings.Contains(answer, "crw_") {
				t.Errorf("answer holds a key: %q", answer)
			}
			d.assertKeyOnlyInDirectMessages(developerID)
			if tt.wantLog != "" && !strings.Contains(d.logs.String(), tt.wantLog) {
				t.Errorf("logs lack %q:\n%s", tt.wantLog, d.logs.String())
			}
			if attempts := len(d.directMessages(developerID)); tt.dmAttempts != 0 && attempts != tt.dmAttempts {
				t.Errorf("the DM was sent %d times, want %d", attempts, tt.dmAttempts)
			}
			d.discord.Heal()
			if tt.delivered {
				d.assertVerdict(d.keyFromLastDM(developerID), nil)
			}
		})
	}
}

// An answer Discord fails to take for a passing reason (a 500) is sent
// again: it is an edit, which may be sent twice. Lost, the question of
// /key regenerate left the member to run the command again, and that
// confirmed it: their key was replaced without their seeing the warning.
func TestAnAnswerDiscordFailedOnceIsSentAgain(t *testing.T) {
	d := newDesk(t, deskOptions{})
	old := d.getKey(developerID)
	d.discord.Fail(discordtest.Rule{Method: "PATCH", Path: "/webhooks/*/*/messages/*", Failure: discordtest.ServerError, Times: 1})
	i := d.slash(developerID, keyChannelID, 0, "key", "regenerate")
	edits := d.discord.RequestsTo("PATCH", "/webhooks/"+i.AppID+"/"+i.Token+"/messages/@original")
	if len(edits) != 2 || !strings.Contains(string(edits[1].Body), "This replaces your developer key") {
		t.Fatalf("the answer was sent %d times, want twice, the question the second time", len(edits))
	}
	d.assertVerdict(old, nil)

	// A refusal that will last (a 403) is not sent again.
	d.discord.Fail(discordtest.Rule{Method: "PATCH", Path: "/webhooks/*/*/messages/*", Failure: discordtest.Forbidden, Times: 1})
	i = d.slash(otherDevID, keyChannelID, 0, "key", "get")
	if edits := d.discord.RequestsTo("PATCH", "/webhooks/"+i.AppID+"/"+i.Token+"/messages/@original"); len(edits) != 1 {
		t.Errorf("an answer Discord refused with 403 was sent %d times, want once", len(edits))
	}
}

// A question Discord did not take (the answer to a first /key regenerate
// or revoke) confirms nothing: the member, who saw no warning, runs the
// command again and is asked again, and their key stays as it was.
func TestAQuestionDiscordDidNotTakeConfirmsNothing(t *testing.T) {
	for _, via := range vias {
		for _, command := range []string{"regenerate", "revoke"} {
			t.Run(via+"/"+command, func(t *testing.T) {
				d := newDesk(t, deskOptions{})
				key := d.getKey(developerID)
				d.runWithAnswerLost(via, command)
				if answer := d.ask(via, keyChannelID, developerID, command); !strings.Contains(answer, "within 60 seconds to confirm") {
					t.Errorf("the command run again: %q, want the question", answer)
				}
				d.assertVerdict(key, nil)
			})
		}
	}
}

// runWithAnswerLost has the developer run the key command (regenerate or
// revoke) via slash or text while Discord fails to take its answer: the
// slash answer's edits (all three tries) or the text reply.
func (d *desk) runWithAnswerLost(via, command string) {
	lost := discordtest.Rule{Method: "PATCH", Path: "/webhooks/*/*/messages/*", Failure: discordtest.ServerError, Times: 3}
	if via == "text" {
		lost = discordtest.Rule{Method: "POST", Path: "/channels/" + keyChannelID + "/messages", Failure: discordtest.ServerError, Times: 1}
	}
	d.discord.Fail(lost)
	if via == "slash" {
		d.slash(developerID, keyChannelID, 0, "key", command)
	} else {
		d.say(developerID, keyChannelID, "!key "+command)
	}
}

// TestAQuestionDiscordDidNotTakeHoldsNoCoolDown: the member whose
// question Discord did not take runs the command again at once, as they
// will, and is asked, not told to wait out the cool-down of a use they
// never saw; a question that reached them still holds it.
func TestAQuestionDiscordDidNotTakeHoldsNoCoolDown(t *testing.T) {
	for _, via := range vias {
		for _, command := range []string{"regenerate", "revoke"} {
			t.Run(via+"/"+command, func(t *testing.T) {
				d := newDesk(t, deskOptions{coolDown: 30 * time.Second})
				key := d.getKey(developerID)
				d.clock.Advance(31 * time.Second)
				d.runWithAnswerLost(via, command)
				d.clock.Advance(time.Second)
				if answer := d.ask(via, keyChannelID, developerID, command); !strings.Contains(answer, "within 60 seconds to confirm") {
					t.Fatalf("the command run again a second after its question was lost: %q, want the question", answer)
				}
				d.clock.Advance(time.Second)
				if answer := d.ask(via, keyChannelID, developerID, "get"); !strings.Contains(answer, "wait 29 seconds") {
					t.Errorf("a get a second after the question that was seen: %q, want to wait 29 seconds", answer)
				}
				d.assertVerdict(key, nil)
			})
		}
	}
}

// TestACommandMessageDeletedFirstIsNoFailure: a text command its author
// deleted before the bot could (404, code 10008) is gone as the bot
// wanted: nothing is logged, least of all a missing Manage Messages; a
// delete that fails otherwise is logged without that guess.
func TestACommandMessageDeletedFirstIsNoFailure(t *testing.T) {
	d := newDesk(t, deskOptions{})
	d.discord.Fail(discordtest.Rule{Method: "DELETE", Path: "/channels/*/messages/*", Failure: discordtest.UnknownMessage})
	d.say(developerID, keyChannelID, "!key get")
	d.keyFromLastDM(developerID)
	if logs := d.logs.String(); strings.Contains(logs, "delete a command message") {
		t.Errorf("a message already deleted was logged as a failure:\n%s", logs)
	}

	d = newDesk(t, deskOptions{})
	d.discord.Fail(discordtest.Rule{Method: "DELETE", Path: "/channels/*/messages/*", Failure: discordtest.ServerError})
	d.say(developerID, keyChannelID, "!key get")
	if logs := d.logs.String(); !strings.Contains(logs, "delete a command message") || strings.Contains(logs, "Manage Messages") {
		t.Errorf("a delete that failed with a 500 is logged as:\n%s", logs)
	}
}
