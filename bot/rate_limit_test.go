package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/models"
)

// Discord answering 429 for longer than a command may take: discordgo
// waits the tiny retry-after and tries again until the request's deadline,
// so the direct message fails with "context deadline exceeded". The member
// must still get the retry-later answer.
func TestSustainedRateLimitOnTheDirectMessageStillAnswersTheMember(t *testing.T) {
	dmSend := "/channels/" + discordtest.DMChannelID(developerID) + "/messages"
	tests := []struct {
		name string
		via  string
		// The handler's deadline, and the direct message's own one.
		handlerTimeout, dmTimeout time.Duration
		rule                      discordtest.Rule
		wantAnswer                string
	}{
		// The 429s outlast the handler's deadline: the answer needs a
		// deadline of its own.
		{name: "sending outlasts the handler", via: "slash", handlerTimeout: 500 * time.Millisecond,
			rule: discordtest.Rule{Method: "POST", Path: dmSend, Failure: discordtest.RateLimited}, wantAnswer: "try `/key get` again in a few minutes"},
		{name: "sending outlasts the handler, text", via: "text", handlerTimeout: 500 * time.Millisecond,
			rule: discordtest.Rule{Method: "POST", Path: dmSend, Failure: discordtest.RateLimited}, wantAnswer: "try `!key get` again in a few minutes"},
		{name: "opening outlasts the handler", via: "slash", handlerTimeout: 500 * time.Millisecond,
			rule: discordtest.Rule{Method: "POST", Path: "/users/@me/channels", Failure: discordtest.RateLimited}, wantAnswer: "try `/key get` again in a few minutes"},
		// A handler without deadline: only the direct message's own
		// deadline ends the retries (without it they would never end).
		{name: "sending outlasts the direct message's deadline", via: "slash", dmTimeout: 300 * time.Millisecond,
			rule: discordtest.Rule{Method: "POST", Path: dmSend, Failure: discordtest.RateLimited}, wantAnswer: "try `/key get` again in a few minutes"},
		{name: "sending outlasts the direct message's deadline, text", via: "text", dmTimeout: 300 * time.Millisecond,
			rule: discordtest.Rule{Method: "POST", Path: dmSend, Failure: discordtest.RateLimited}, wantAnswer: "try `!key get` again in a few minutes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{handlerTimeout: tt.handlerTimeout, directMessageTimeout: tt.dmTimeout})
			d.discord.Fail(tt.rule)
			var answer string
			if tt.via == "slash" {
				i := d.slash(developerID, keyChannelID, 0, "key", "get")
				d.assertEphemeral(i)
				answer = d.answerText(i)
			} else {
				answer = d.ask("text", keyChannelID, developerID, "get")
				if !strings.HasPrefix(answer, "<@"+developerID+">") {
					t.Errorf("answer is not addressed to the member: %q", answer)
				}
			}
			if !strings.Contains(answer, tt.wantAnswer) {
				t.Errorf("answer = %q, want %q", answer, tt.wantAnswer)
			}
			if attempts := len(d.discord.RequestsTo("POST", tt.rule.Path)); attempts < 2 {
				t.Errorf("%s was tried %d times; the fake's 429 should have been retried", tt.rule.Path, attempts)
			}
			d.assertKeyOnlyInDirectMessages(developerID)
			logs := d.logs.String()
			if !strings.Contains(logs, "send a key by direct message") || !strings.Contains(logs, "context deadline exceeded") {
				t.Errorf("logs lack the failed direct message:\n%s", logs)
			}

			// Once Discord lets the bot through, asking again delivers.
			d.discord.Heal()
			if answer := d.ask(tt.via, keyChannelID, developerID, "get"); !strings.Contains(answer, "direct messages") {
				t.Errorf("after the rate limit: %q", answer)
			}
			d.assertVerdict(d.keyFromLastDM(developerID), nil)
		})
	}
}

func TestSustainedRateLimitOnTheNewKeysDirectMessageSaysHowToReceiveIt(t *testing.T) {
	d := newDesk(t, deskOptions{handlerTimeout: 500 * time.Millisecond})
	old := d.getKey(developerID)
	d.slash(developerID, keyChannelID, 0, "key", "regenerate")
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + discordtest.DMChannelID(developerID) + "/messages", Failure: discordtest.RateLimited})
	answer := d.answerText(d.press(developerID, developerID))
	if !strings.Contains(answer, "new key is ready") || !strings.Contains(answer, "use `/key get` in a few minutes") {
		t.Errorf("answer = %q", answer)
	}
	d.assertKeyOnlyInDirectMessages(developerID)
	if !strings.Contains(d.logs.String(), "context deadline exceeded") {
		t.Errorf("logs lack the failed direct message:\n%s", d.logs.String())
	}
	d.assertVerdict(old, models.ErrUnknownKey)
	d.discord.Heal()
	d.assertNewKeyWorks(developerID, old)
}
