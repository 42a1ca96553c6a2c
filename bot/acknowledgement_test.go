package bot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/internal/metricstest"
)

// callbacks is the route of an interaction's initial response.
const callbacks = "/interactions/*/*/callback"

// Discord drops an interaction whose initial response does not reach it
// within three seconds ("The application did not respond"), and refuses
// the response after that. A 429 asking a longer wait than that, though
// shorter than the handler's deadline, is not waited out to send a
// response too late: the bot gives up at once, logs it and counts it.
func TestAnAcknowledgementIsNotWaitedOutPastDiscordsWindow(t *testing.T) {
	reg := prometheus.NewRegistry()
	d := newDesk(t, deskOptions{metrics: reg, handlerTimeout: 15 * time.Second})
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: callbacks, Failure: discordtest.RateLimited, RetryAfter: 5 * time.Second, Times: 1})
	d.slash(developerID, keyChannelID, 0, "key", "get")
	if sent := len(d.discord.RequestsTo("POST", callbacks)); sent != 1 {
		t.Errorf("the acknowledgement was sent %d times, want once: Discord's window had passed before the second", sent)
	}
	if logs := d.logs.String(); !strings.Contains(logs, "acknowledge a slash command") || !strings.Contains(logs, "Discord asks to wait 5s") {
		t.Errorf("logs lack the acknowledgement given up:\n%s", logs)
	}
	if dms := d.directMessages(developerID); len(dms) != 0 {
		t.Errorf("a command whose acknowledgement failed still sent %d direct messages", len(dms))
	}
	families := metricstest.Gather(t, reg)
	checkCommandCounts(t, families, []commandCount{{"key get", "unanswered", 1}})
	if got := families.Value("crowns_bot_acknowledgement_failures_total", nil); got != 1 {
		t.Errorf("crowns_bot_acknowledgement_failures_total = %v, want 1", got)
	}
}

// An acknowledgement Discord failed to take for a passing reason (a 5xx)
// is sent again within its window, so the member gets their answer. An
// acknowledgement Discord did take, though its answer was lost, is
// refused the second time as acknowledged already (code 40060): that is
// success, and the command goes on. A lasting refusal (a 403) is not sent
// again.
func TestAnAcknowledgementDiscordFailedOnceIsSentAgain(t *testing.T) {
	tests := []struct {
		name     string
		rule     discordtest.Rule
		press    bool
		wantSent int
		// answered says whether the member gets the command's answer.
		answered bool
	}{
		{name: "slash command, 500", rule: discordtest.Rule{Failure: discordtest.ServerError, Times: 1}, wantSent: 2, answered: true},
		{name: "slash command, 500 after Discord took it", rule: discordtest.Rule{Failure: discordtest.ServerError, Times: 1, Taken: true},
			wantSent: 2, answered: true},
		{name: "button, 500", press: true, rule: discordtest.Rule{Failure: discordtest.ServerError, Times: 1}, wantSent: 2, answered: true},
		{name: "slash command, 403", rule: discordtest.Rule{Failure: discordtest.Forbidden, Times: 1}, wantSent: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			d := newDesk(t, deskOptions{metrics: reg, handlerTimeout: 15 * time.Second})
			if tt.press {
				d.getKey(developerID)
				d.slash(developerID, keyChannelID, 0, "key", "regenerate")
			}
			tt.rule.Method, tt.rule.Path = "POST", callbacks
			d.discord.Fail(tt.rule)
			var i *discordgo.Interaction
			want := "check your direct messages"
			if tt.press {
				i, want = d.press(developerID, developerID), "your new key is in your direct messages"
			} else {
				i = d.slash(developerID, keyChannelID, 0, "key", "get")
			}
			callbackPath := "/interactions/" + i.ID + "/" + i.Token + "/callback"
			if sent := len(d.discord.RequestsTo("POST", callbackPath)); sent != tt.wantSent {
				t.Errorf("the acknowledgement was sent %d times, want %d", sent, tt.wantSent)
			}
			edits := d.discord.RequestsTo("PATCH", "/webhooks/"+i.AppID+"/"+i.Token+"/messages/@original")
			if !tt.answered {
				if len(edits) != 0 {
					t.Errorf("answered %d times after the acknowledgement was refused", len(edits))
				}
				if got := metricstest.Gather(t, reg).Value("crowns_bot_acknowledgement_failures_total", nil); got != 1 {
					t.Errorf("crowns_bot_acknowledgement_failures_total = %v, want 1", got)
				}
				return
			}
			if answer := d.answerText(i); !strings.Contains(answer, want) {
				t.Errorf("answer = %q, want %q", answer, want)
			}
			if logs := d.logs.String(); strings.Contains(logs, "acknowledge a") {
				t.Errorf("an acknowledgement that went through the second time is logged as failed:\n%s", logs)
			}
			if got := metricstest.Gather(t, reg).Value("crowns_bot_acknowledgement_failures_total", nil); got != 0 {
				t.Errorf("crowns_bot_acknowledgement_failures_total = %v, want 0", got)
			}
			d.assertVerdict(d.keyFromLastDM(developerID), nil)
		})
	}
}

// Every interaction has its own response address, and discordgo keeps a
// rate-limit bucket per address for the life of the process: answering
// interactions must not leave one behind each, or a long-running bot's
// memory grows with every command it answers.
func TestAnsweredInteractionsLeaveNoRateLimitBucketBehind(t *testing.T) {
	d := newDesk(t, deskOptions{})
	d.getKey(developerID)
	before := d.bot.RateLimitBuckets()
	const commands = 20
	for range commands {
		d.slash(developerID, keyChannelID, 0, "key", "help")
	}
	if after := d.bot.RateLimitBuckets(); after > before+1 {
		t.Fatalf("%d commands answered left %d rate-limit buckets behind", commands, after-before)
	}
}
