package bot_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

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

// Discord may ask a rate-limited bot to wait far longer than a command
// may take (an hour, say). discordgo sleeps that out whatever the
// request's deadline, and only then finds the deadline passed; the bot
// gives up at once instead, and answers the member, who can ask again.
func TestALongRateLimitDoesNotHoldTheAnswer(t *testing.T) {
	dmSend := "/channels/" + discordtest.DMChannelID(developerID) + "/messages"
	tests := []struct {
		name string
		via  string
		rule discordtest.Rule
		// wantAnswer is in the answer, "" when the answer itself is the
		// request rate-limited.
		wantAnswer string
	}{
		{name: "sending the direct message", via: "slash", rule: discordtest.Rule{Method: "POST", Path: dmSend},
			wantAnswer: "try `/key get` again in a few minutes"},
		{name: "sending the direct message, text", via: "text", rule: discordtest.Rule{Method: "POST", Path: dmSend},
			wantAnswer: "try `!key get` again in a few minutes"},
		{name: "opening the direct message", via: "slash", rule: discordtest.Rule{Method: "POST", Path: "/users/@me/channels"},
			wantAnswer: "try `/key get` again in a few minutes"},
		{name: "the answer", via: "slash", rule: discordtest.Rule{Method: "PATCH", Path: "/webhooks/*/*/messages/*"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{handlerTimeout: 2 * time.Second, directMessageTimeout: 300 * time.Millisecond})
			tt.rule.Failure, tt.rule.RetryAfter, tt.rule.Times = discordtest.RateLimited, time.Hour, 1
			d.discord.Fail(tt.rule)
			answered := make(chan *discordgo.Interaction, 1)
			go func() {
				if tt.via == "slash" {
					answered <- d.slash(developerID, keyChannelID, 0, "key", "get")
					return
				}
				d.say(developerID, keyChannelID, "!key get")
				answered <- nil
			}()
			var i *discordgo.Interaction
			select {
			case i = <-answered:
			case <-time.After(30 * time.Second):
				t.Fatalf("the command was still waiting for Discord's hour after 30 s")
			}
			if tt.wantAnswer != "" {
				var answer string
				if i != nil {
					answer = d.answerText(i)
				} else if posts := d.channelPosts(keyChannelID); len(posts) > 0 {
					answer = posts[len(posts)-1]
				}
				if !strings.Contains(answer, tt.wantAnswer) {
					t.Errorf("answer = %q, want %q", answer, tt.wantAnswer)
				}
			}
			if !strings.Contains(d.logs.String(), "context deadline exceeded: Discord asks to wait 1h0m0s") {
				t.Errorf("logs lack the rate limit:\n%s", d.logs.String())
			}
			d.assertKeyOnlyInDirectMessages(developerID)
		})
	}
}

// After a global 429, discordgo's rate limiter holds back no other
// request, an interaction's acknowledgement (which Discord exempts from
// the global limit) included: it keeps a global wait only from
// X-RateLimit-Reset-After, which Discord's global 429 does not carry. So
// the acknowledgements need no rate limiter of their own; a discordgo that
// kept that wait from Retry-After would fail this.
func TestAGlobalRateLimitHoldsBackNoAcknowledgement(t *testing.T) {
	discord := discordtest.New(t)
	discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/*/messages", Failure: discordtest.RateLimited, Global: true, RetryAfter: time.Hour, Times: 1})
	session, err := discordgo.New("Bot test-token")
	if err != nil {
		t.Fatal(err)
	}
	session.Client = discord.Client()
	// The bot's session sleeps a 429 out in the request that got it;
	// this one fails at once, leaving what its limiter keeps to see.
	session.ShouldRetryOnRateLimit = false
	_, err = session.ChannelMessageSend(logChannelID, "a post", discordgo.WithContext(t.Context()))
	var limited *discordgo.RateLimitError
	if !errors.As(err, &limited) || limited.RetryAfter != time.Hour {
		t.Fatalf("the post: %v, want Discord's global 429 of an hour", err)
	}
	i := &discordgo.Interaction{ID: "600000000000000001", Token: "token-1"}
	bucket := session.Ratelimiter.GetBucket(discordgo.EndpointInteractionResponse(i.ID, i.Token))
	if wait := session.Ratelimiter.GetWaitTime(bucket, 1); wait != 0 {
		t.Fatalf("after the global 429 an acknowledgement waits %s first", wait)
	}
	acknowledged := make(chan error, 1)
	go func() {
		acknowledged <- session.InteractionRespond(i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource},
			discordgo.WithContext(t.Context()))
	}()
	select {
	case err := <-acknowledged:
		if err != nil {
			t.Fatalf("the acknowledgement: %v", err)
		}
	case <-time.After(awaitTimeout):
		t.Fatal("the acknowledgement was held back by the global 429")
	}
}
