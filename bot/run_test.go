package bot_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/models"
)

// awaitTimeout bounds the waits for the bot's own goroutines.
const awaitTimeout = 10 * time.Second

// run starts the bot's Run and returns a function that ends it and
// returns its result.
func (d *desk) run() (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.bot.Run(ctx) }()
	return func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(awaitTimeout):
			d.t.Fatal("Run did not return after its context ended")
			return nil
		}
	}
}

func TestRunConnectsRegistersCommandsReconcilesAndStops(t *testing.T) {
	const newcomerID = "800000000000000003"
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	gone := d.getKey(otherDevID)
	leaving := d.getKey(developerID)
	d.discord.SetMembers(developerID, newcomerID)
	d.discord.SetGateway(discordtest.GatewayScript{GuildIDs: []string{guildID}, Events: []discordtest.GatewayEvent{
		{Type: "GUILD_MEMBER_REMOVE", Data: discordgo.Member{GuildID: guildID, User: &discordgo.User{ID: developerID}}},
		{Type: "MESSAGE_CREATE", Data: discordgo.Message{ID: d.id(), GuildID: guildID, ChannelID: keyChannelID,
			Content: "!key get", Author: &discordgo.User{ID: newcomerID, Username: "newcomer"}}},
	}})
	stop := d.run()

	puts := d.discord.Await(t, "PUT", "/applications/"+discordtest.DefaultApplicationID+"/guilds/"+guildID+"/commands", 1, awaitTimeout)
	var commands []*discordgo.ApplicationCommand
	if err := json.Unmarshal(puts[0].Body, &commands); err != nil {
		t.Fatal(err)
	}
	registered := map[string]*discordgo.ApplicationCommand{}
	for _, c := range commands {
		registered[c.Name] = c
	}
	for name, wantPerms := range map[string]int64{"key": 0, "keyadmin": discordgo.PermissionBanMembers, "clan": discordgo.PermissionBanMembers} {
		c, ok := registered[name]
		if !ok {
			t.Errorf("command /%s not registered", name)
			continue
		}
		var perms int64
		if c.DefaultMemberPermissions != nil {
			perms = *c.DefaultMemberPermissions
		}
		if perms != wantPerms {
			t.Errorf("/%s default member permissions = %d, want %d", name, perms, wantPerms)
		}
	}
	identifies := d.discord.Identifies()
	want := discordgo.IntentsGuilds | discordgo.IntentsGuildMembers | discordgo.IntentsGuildMessages | discordgo.IntentsMessageContent
	if len(identifies) != 1 || identifies[0].Intents != want || identifies[0].Token != "Bot test-token" {
		t.Errorf("identify = %+v, want intents %d", identifies, want)
	}

	// The reconciliation on READY disables the absent developer, the
	// member who leaves loses their key, the newcomer's text command gets
	// a key by DM, and the audit loop posts all five transitions.
	d.discord.Await(t, "POST", "/channels/"+logChannelID+"/messages", 5, awaitTimeout)
	d.discord.Await(t, "POST", "/channels/"+discordtest.DMChannelID(newcomerID)+"/messages", 1, awaitTimeout)
	d.assertVerdict(gone, models.ErrKeyDisabled)
	d.assertVerdict(leaving, models.ErrKeyDisabled)
	d.assertVerdict(d.keyFromLastDM(newcomerID), nil)

	if err := stop(); err != nil {
		t.Fatalf("Run returned %v", err)
	}
	if !strings.Contains(d.logs.String(), "disconnected from Discord") {
		t.Errorf("logs lack the disconnection:\n%s", d.logs.String())
	}
}

func TestRunLogsOneInstructionWhenDiscordRefusesTheBot(t *testing.T) {
	tests := []struct {
		name    string
		refuse  func(*discordtest.Server)
		want    string
		opening bool
	}{
		{name: "privileged intents refused (4014)", want: "enable the Server Members and Message Content intents", opening: true,
			refuse: func(s *discordtest.Server) { s.SetGateway(discordtest.GatewayScript{CloseCode: 4014}) }},
		{name: "token refused by the gateway (4004)", want: "Discord refused the bot token", opening: true,
			refuse: func(s *discordtest.Server) { s.SetGateway(discordtest.GatewayScript{CloseCode: 4004}) }},
		{name: "token refused over REST (401)", want: "Discord refused the bot token",
			refuse: func(s *discordtest.Server) {
				s.Fail(discordtest.Rule{Method: "GET", Path: "/users/@me", Failure: discordtest.Unauthorized})
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			tt.refuse(d.discord)
			done := make(chan error, 1)
			go func() { done <- d.bot.Run(t.Context()) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Run returned %v, want nil so the API keeps serving", err)
				}
			case <-time.After(awaitTimeout):
				t.Fatal("Run kept going after Discord refused the bot")
			}
			logs := d.logs.String()
			if strings.Count(logs, tt.want) != 1 {
				t.Errorf("logs hold the instruction %d times, want once:\n%s", strings.Count(logs, tt.want), logs)
			}
			if strings.Contains(logs, "test-token") {
				t.Error("the token appears in the logs")
			}
			if opened := len(d.discord.Identifies()); (opened == 1) != tt.opening {
				t.Errorf("gateway identified %d times", opened)
			}
		})
	}
}

func TestRunRetriesAnUnreachableGateway(t *testing.T) {
	d := newDesk(t, deskOptions{reconnectDelay: time.Millisecond})
	d.discord.Fail(discordtest.Rule{Method: "GET", Path: "/gateway", Failure: discordtest.ServerError, Times: 2})
	d.discord.SetGateway(discordtest.GatewayScript{GuildIDs: []string{guildID}})
	stop := d.run()
	d.discord.Await(t, "PUT", "/applications/*/guilds/*/commands", 1, awaitTimeout)
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if retries := strings.Count(d.logs.String(), "cannot reach the Discord gateway; retrying"); retries != 2 {
		t.Errorf("logged %d retries, want 2:\n%s", retries, d.logs.String())
	}
}

func TestRunTwiceIsRefused(t *testing.T) {
	d := newDesk(t, deskOptions{})
	d.discord.SetGateway(discordtest.GatewayScript{GuildIDs: []string{guildID}})
	stop := d.run()
	d.discord.Await(t, "PUT", "/applications/*/guilds/*/commands", 1, awaitTimeout)
	if err := d.bot.Run(t.Context()); err == nil {
		t.Error("a second Run was accepted")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// A gateway connection lost after it was made is made again, through the
// bot's own retries (the house backoff), as many times as it is lost:
// the third connection, which the gateway keeps, is made.
func TestRunReconnectsALostGateway(t *testing.T) {
	const first = 20 * time.Millisecond
	d := newDesk(t, deskOptions{reconnectDelay: first})
	d.discord.SetGateway(discordtest.GatewayScript{GuildIDs: []string{guildID}, DropConnections: 2})
	stop := d.run()
	deadline := time.Now().Add(awaitTimeout)
	for len(d.discord.Identifies()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("%d gateway connections, want 3 (two lost, then one kept):\n%s", len(d.discord.Identifies()), d.logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	// discordgo may close a new connection once more from the heartbeat
	// of the one it lost (a race of its own): the bot reconnects again.
	waits := reconnectWaits(t, d.logs.String())
	if len(waits) < 2 {
		t.Fatalf("logged %d reconnections, want one for each of the 2 connections lost:\n%s", len(waits), d.logs.String())
	}
	// The house backoff: the first wait within [first/2, first], the
	// second, a loss right after a reconnection, at least doubled.
	if waits[0] < first/2 || waits[0] > first || waits[1] < first {
		t.Errorf("waits before reconnecting %v, want the first in [%s, %s] and the second at least %s", waits, first/2, first, first)
	}
}

// reconnectWaits reads the waits the bot logged before reconnecting.
func reconnectWaits(t *testing.T, logs string) []time.Duration {
	t.Helper()
	var waits []time.Duration
	for _, line := range strings.Split(logs, "\n") {
		if !strings.Contains(line, "lost the Discord gateway; reconnecting") {
			continue
		}
		_, value, _ := strings.Cut(line, "retryIn=")
		value, _, _ = strings.Cut(value, " ")
		wait, err := time.ParseDuration(value)
		if err != nil {
			t.Fatalf("no wait in %q: %v", line, err)
		}
		waits = append(waits, wait)
	}
	return waits
}

// Shutdown does not wait for an hour's 429: the audit loop's post to the
// log channel gives up at once (and is retried later), so Run returns as
// soon as its context ends.
func TestShutdownDoesNotWaitOutALongRateLimit(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	d.getKey(developerID)
	d.discord.SetMembers(developerID)
	d.discord.SetGateway(discordtest.GatewayScript{GuildIDs: []string{guildID}})
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + logChannelID + "/messages", Failure: discordtest.RateLimited, RetryAfter: time.Hour})
	stop := d.run()
	// Held back, not waiting: the post is logged as failed, with why.
	if logs := d.awaitLog("cannot post key events to the log channel; will retry"); !strings.Contains(logs, "Discord asks to wait 1h0m0s") {
		t.Errorf("logs lack why the post was held back:\n%s", logs)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

// An hour's 429 on the requests Run makes before the gateway is open
// (checking the token, discordgo's own look-up of the gateway's address)
// does not hold the bot back: it goes on connecting.
func TestRunConnectsDespiteALongRateLimit(t *testing.T) {
	for _, path := range []string{"/users/@me", "/gateway"} {
		t.Run(path, func(t *testing.T) {
			d := newDesk(t, deskOptions{reconnectDelay: time.Millisecond})
			d.discord.SetGateway(discordtest.GatewayScript{GuildIDs: []string{guildID}})
			d.discord.Fail(discordtest.Rule{Method: "GET", Path: path, Failure: discordtest.RateLimited, RetryAfter: time.Hour, Times: 1})
			stop := d.run()
			d.discord.Await(t, "PUT", "/applications/*/guilds/*/commands", 1, awaitTimeout)
			if err := stop(); err != nil {
				t.Fatal(err)
			}
		})
	}
}
