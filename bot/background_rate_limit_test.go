package bot_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/models"
)

// An hour's 429 on a request the bot makes on its own, outside any
// command (a post to the log channel, a usage alert, a page of the member
// list, registering the slash commands), fails the request at once
// instead of sleeping the hour out, and what it carried is not lost: the
// next try, once Discord lets the bot through, sends it.
func TestALongRateLimitDoesNotHoldTheBotsOwnRequests(t *testing.T) {
	logPosts := "/channels/" + logChannelID + "/messages"
	ready := &discordgo.Ready{User: &discordgo.User{ID: discordtest.DefaultBotUserID},
		Application: &discordgo.Application{ID: discordtest.DefaultApplicationID}, Guilds: []*discordgo.Guild{{ID: guildID}}}
	tests := []struct {
		name   string
		method string
		path   string
		// setUp prepares what try sends; try sends it once and returns the
		// error to hold the rate limit; again sends it once Discord heals.
		setUp func(d *desk)
		try   func(ctx context.Context, d *desk) error
		again func(ctx context.Context, d *desk)
	}{
		{name: "a key event to the log channel", method: "POST", path: logPosts,
			setUp: func(d *desk) { d.getKey(developerID) },
			try: func(ctx context.Context, d *desk) error {
				_, err := d.bot.PostPendingEvents(ctx)
				return err
			},
			again: func(ctx context.Context, d *desk) {
				if posted, err := d.bot.PostPendingEvents(ctx); err != nil || posted != 1 {
					d.t.Errorf("after the rate limit: posted %d key events (%v), want the one held back", posted, err)
				}
			}},
		{name: "a usage alert", method: "POST", path: logPosts,
			setUp: func(d *desk) {
				d.getKey(developerID)
				if _, err := d.bot.PostPendingEvents(context.Background()); err != nil {
					d.t.Fatal(err)
				}
				d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
			},
			try: func(ctx context.Context, d *desk) error {
				_, err := d.bot.CheckUsageAlerts(ctx)
				return err
			},
			again: func(ctx context.Context, d *desk) {
				if posted, err := d.bot.CheckUsageAlerts(ctx); err != nil || posted != 1 {
					d.t.Errorf("after the rate limit: posted %d alerts (%v), want the one held back", posted, err)
				}
			}},
		{name: "a page of the member list", method: "GET", path: "/guilds/" + guildID + "/members",
			setUp: func(d *desk) {
				d.getKey(developerID)
				d.getKey(otherDevID)
				d.discord.SetMembers(developerID)
			},
			try: func(ctx context.Context, d *desk) error {
				report, err := d.bot.Reconcile(ctx)
				if report.Disabled != 0 {
					d.t.Errorf("a reconciliation without the member list disabled %d keys", report.Disabled)
				}
				return err
			},
			again: func(ctx context.Context, d *desk) {
				if report, err := d.bot.Reconcile(ctx); err != nil || report.Disabled != 1 {
					d.t.Errorf("after the rate limit: reconciliation %+v (%v), want the one who left disabled", report, err)
				}
			}},
		{name: "registering the slash commands", method: "PUT", path: "/applications/*/guilds/*/commands",
			setUp: func(*desk) {},
			try: func(ctx context.Context, d *desk) error {
				d.bot.HandleReady(ctx, ready)
				return nil
			},
			again: func(ctx context.Context, d *desk) {
				// Registered again at the next READY (a reconnection).
				d.bot.HandleReady(ctx, ready)
				if puts := d.discord.RequestsTo("PUT", "/applications/*/guilds/*/commands"); len(puts) != 2 {
					d.t.Errorf("commands registered %d times, want the refused try and the next", len(puts))
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{logChannel: logChannelID})
			tt.setUp(d)
			d.discord.Fail(discordtest.Rule{Method: tt.method, Path: tt.path, Failure: discordtest.RateLimited, RetryAfter: time.Hour, Times: 1})
			// No deadline of the caller's: the loops that make these
			// requests run until shutdown.
			ctx := context.Background()
			done := make(chan error, 1)
			go func() { done <- tt.try(ctx, d) }()
			var err error
			select {
			case err = <-done:
			case <-time.After(awaitTimeout):
				t.Fatalf("%s %s was still waiting for Discord's hour after %s", tt.method, tt.path, awaitTimeout)
			}
			const limited = "context deadline exceeded: Discord asks to wait 1h0m0s"
			if !strings.Contains(errorText(err), limited) && !strings.Contains(d.logs.String(), limited) {
				t.Errorf("neither the error (%v) nor the logs say Discord's wait:\n%s", err, d.logs.String())
			}
			tt.again(ctx, d)
		})
	}
}

// errorText is err's text, "" for nil.
func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// A usage alert Discord did not take says which key it was about, so the
// log tells the moderators what they did not see until it is posted.
func TestAUsageAlertNotPostedNamesItsKey(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	d.getKey(developerID)
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + logChannelID + "/messages", Failure: discordtest.ServerError, Times: 1})
	_, err := d.bot.CheckUsageAlerts(t.Context())
	if text := errorText(err); !strings.Contains(text, "key record #1") || !strings.Contains(text, developerID) || !strings.Contains(text, "HTTP 500") {
		t.Errorf("error = %v, want the key record, its developer and Discord's answer", err)
	}
}

// A usage alert Discord refuses for its body (400) is logged and passed
// over until its cool-down ends, and the alerts after it are posted in
// the same check; a check stopped at it would have stopped at it again
// every time.
func TestAUsageAlertRefusedForItsBodyIsPassedOver(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	d.getKey(developerID)
	d.getKey(otherDevID)
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
	d.use(otherDevID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + logChannelID + "/messages", Failure: discordtest.InvalidFormBody, Times: 1})
	if posted, err := d.bot.CheckUsageAlerts(t.Context()); err != nil || posted != 1 {
		t.Fatalf("CheckUsageAlerts posted %d (%v), want the alert after the refused one", posted, err)
	}
	if logs := d.logs.String(); !strings.Contains(logs, "Discord refused a usage alert") || !strings.Contains(logs, "HTTP 400, code 50035") {
		t.Errorf("logs:\n%s\nwant the refused alert and Discord's answer", logs)
	}
	if posted, err := d.bot.CheckUsageAlerts(t.Context()); err != nil || posted != 0 {
		t.Errorf("the next check posted %d (%v), want none: the refused alert's cool-down holds", posted, err)
	}
}

// A usage alert refused with a 400 that is not about its body (a log
// channel that takes no messages) is not passed over: the check stops
// with the error, and once the channel is mended the next check posts it.
func TestAUsageAlertRefusedForItsChannelIsPostedLater(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	d.getKey(developerID)
	d.use(developerID, "/clan/search", models.KeyUsageCount{Requests: 1000, RateLimited: 700}, 0)
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + logChannelID + "/messages", Failure: discordtest.NotTextChannel, Times: 1})
	if posted, err := d.bot.CheckUsageAlerts(t.Context()); !strings.Contains(errorText(err), "code 50008") || posted != 0 {
		t.Fatalf("CheckUsageAlerts posted %d (%v), want none and Discord's refusal", posted, err)
	}
	if posted, err := d.bot.CheckUsageAlerts(t.Context()); err != nil || posted != 1 {
		t.Errorf("the next check posted %d (%v), want the alert refused before", posted, err)
	}
}
