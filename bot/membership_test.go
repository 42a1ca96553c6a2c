package bot_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/bot"
	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// leave tells the bot that a member left the community server.
func (d *desk) leave(userID string) {
	d.bot.HandleGuildMemberRemove(d.t.Context(), &discordgo.GuildMemberRemove{Member: &discordgo.Member{
		GuildID: guildID, User: &discordgo.User{ID: userID},
	}})
}

func TestLeavingDisablesTheKeyUntilTheMemberAsksAgain(t *testing.T) {
	d := newDesk(t, deskOptions{})
	key := d.getKey(developerID)
	d.assertVerdict(key, nil) // cached as valid before the member leaves
	d.leave(developerID)
	d.assertVerdict(key, models.ErrKeyDisabled)

	// Rejoining changes nothing by itself, not even a reconciliation.
	d.discord.SetMembers(developerID)
	if _, err := d.bot.Reconcile(t.Context()); err != nil {
		t.Fatal(err)
	}
	d.assertVerdict(key, models.ErrKeyDisabled)

	answer := d.ask("slash", keyChannelID, developerID, "get")
	if !strings.Contains(answer, "Welcome back") {
		t.Errorf("answer = %q, want a welcome back", answer)
	}
	if again := d.keyFromLastDM(developerID); again != key {
		t.Error("coming back gave a different key")
	}
	d.assertVerdict(key, nil)
}

func TestLeavingOfOtherServersAndMembersWithoutKeysChangesNothing(t *testing.T) {
	d := newDesk(t, deskOptions{})
	key := d.getKey(developerID)
	d.bot.HandleGuildMemberRemove(t.Context(), &discordgo.GuildMemberRemove{Member: &discordgo.Member{
		GuildID: "999", User: &discordgo.User{ID: developerID},
	}})
	d.leave(otherDevID)
	d.assertVerdict(key, nil)
}

// memberIDs returns n member ids spread over the snowflake range.
func memberIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%d", 300000000000000000+int64(i)*1000)
	}
	return ids
}

func TestReconcileAcrossPagesDisablesExactlyTheAbsentees(t *testing.T) {
	d := newDesk(t, deskOptions{})
	members := memberIDs(2500)
	// Developers on the first, second and third page, and between them.
	staying := []string{members[0], members[999], members[1000], members[2499]}
	gone := []string{"300000000000000500", "300000000001500500", "900000000000000000"}
	keyOf := map[string]string{}
	for _, id := range append(slices.Clone(staying), gone...) {
		keyOf[id] = d.getKey(id)
	}
	d.discord.SetMembers(members...)

	report, err := d.bot.Reconcile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if report.MembersSeen != 2500 || report.DevelopersChecked != 7 || report.Disabled != 3 {
		t.Errorf("report = %+v, want 2500 members seen, 7 developers checked, 3 disabled", report)
	}
	for _, id := range staying {
		d.assertVerdict(keyOf[id], nil)
	}
	for _, id := range gone {
		d.assertVerdict(keyOf[id], models.ErrKeyDisabled)
	}
	pages := d.discord.RequestsTo("GET", "/guilds/"+guildID+"/members")
	var afters []string
	for _, p := range pages {
		if p.Query.Get("limit") != "1000" {
			t.Errorf("page asked with limit %q, want 1000", p.Query.Get("limit"))
		}
		afters = append(afters, p.Query.Get("after"))
	}
	if want := []string{"", members[999], members[1999]}; !slices.Equal(afters, want) {
		t.Errorf("pages asked after %q, want %q", afters, want)
	}

	// A second run finds nothing more to do.
	report, err = d.bot.Reconcile(t.Context())
	if err != nil || report.Disabled != 0 || report.DevelopersChecked != 4 {
		t.Errorf("second run: %+v, %v", report, err)
	}
}

func TestReconcileWithAFailedPageDisablesNobody(t *testing.T) {
	for _, failure := range []discordtest.Failure{discordtest.ServerError, discordtest.Forbidden} {
		t.Run(failure.String(), func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			members := memberIDs(2500)
			gone := "900000000000000000"
			key := d.getKey(gone)
			staying := d.getKey(members[0])
			d.discord.SetMembers(members...)
			d.discord.Fail(discordtest.Rule{Method: "GET", Path: "/guilds/*/members", Failure: failure, Skip: 1, Times: 1})

			report, err := d.bot.Reconcile(t.Context())
			if err == nil {
				t.Fatal("reconciliation with a failed page reported no error")
			}
			if report.Disabled != 0 {
				t.Errorf("report = %+v, want nobody disabled", report)
			}
			d.assertVerdict(key, nil)
			d.assertVerdict(staying, nil)
		})
	}
}

func TestReadyRegistersCommandsReconcilesAndLogsTheCounts(t *testing.T) {
	d := newDesk(t, deskOptions{})
	gone := d.getKey(otherDevID)
	d.discord.SetMembers(developerID)
	d.bot.HandleReady(t.Context(), &discordgo.Ready{
		User:        &discordgo.User{ID: discordtest.DefaultBotUserID},
		Application: &discordgo.Application{ID: discordtest.DefaultApplicationID},
		Guilds:      []*discordgo.Guild{{ID: guildID}},
	})
	if puts := d.discord.RequestsTo("PUT", "/applications/"+discordtest.DefaultApplicationID+"/guilds/"+guildID+"/commands"); len(puts) != 1 {
		t.Errorf("commands registered %d times, want once", len(puts))
	}
	d.assertVerdict(gone, models.ErrKeyDisabled)
	logs := d.logs.String()
	if !strings.Contains(logs, "membersSeen=1 developersChecked=1 disabled=1") {
		t.Errorf("logs lack the reconciliation counts:\n%s", logs)
	}
}

func TestReadyWithoutTheCommunityServerLogsTheInvite(t *testing.T) {
	d := newDesk(t, deskOptions{})
	d.bot.HandleReady(t.Context(), &discordgo.Ready{
		User:        &discordgo.User{ID: discordtest.DefaultBotUserID},
		Application: &discordgo.Application{ID: discordtest.DefaultApplicationID},
	})
	if requests := d.discord.Requests(); len(requests) != 0 {
		t.Errorf("the bot called Discord: %v", requests)
	}
	if !strings.Contains(d.logs.String(), "https://discord.com/oauth2/authorize?client_id="+discordtest.DefaultApplicationID+"&scope=bot+applications.commands&permissions=93184") {
		t.Errorf("logs lack the invite link:\n%s", d.logs.String())
	}
}

// failingDisables is a keys service whose first Disable calls fail as a
// database that cannot be reached does.
type failingDisables struct {
	bot.KeyService
	failures atomic.Int32
}

func (f *failingDisables) Disable(ctx context.Context, discordUserID, actor, reason string) error {
	if f.failures.Add(-1) >= 0 {
		return models.Unavailable("database", 0, errors.New("connection refused"))
	}
	return f.KeyService.Disable(ctx, discordUserID, actor, reason)
}

// TestADepartureThatCouldNotBeRecordedIsRetried: when the key of a member
// who left cannot be disabled (the database fails), on their departure or
// in the reconciliation when the bot connects, the bot reconciles again
// soon, until it succeeds, instead of leaving the key working until the
// next connection.
func TestADepartureThatCouldNotBeRecordedIsRetried(t *testing.T) {
	tests := []struct {
		name string
		// leaveWhileConnected: the member leaves after the bot
		// connected; otherwise before, while it was offline.
		leaveWhileConnected bool
		failures            int32
	}{
		{name: "leaving while the bot is connected", leaveWhileConnected: true, failures: 1},
		{name: "left while the bot was offline", failures: 1},
		{name: "several failures in a row", leaveWhileConnected: true, failures: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flaky := &failingDisables{}
			d := newDesk(t, deskOptions{reconnectDelay: 10 * time.Millisecond,
				wrapKeys: func(k bot.KeyService) bot.KeyService { flaky.KeyService = k; return flaky }})
			key := d.getKey(developerID)
			if tt.leaveWhileConnected {
				d.discord.SetMembers(developerID, otherDevID)
			} else {
				d.discord.SetMembers(otherDevID)
				flaky.failures.Store(tt.failures)
			}
			d.discord.SetGateway(discordtest.GatewayScript{GuildIDs: []string{guildID}})
			stop := d.run()
			defer func() {
				if err := stop(); err != nil {
					t.Errorf("Run returned %v", err)
				}
			}()
			d.discord.Await(t, "GET", "/guilds/"+guildID+"/members", 1, awaitTimeout)
			if tt.leaveWhileConnected {
				awaitLog(t, d, "reconciled developer keys with the member list")
				d.discord.SetMembers(otherDevID)
				flaky.failures.Store(tt.failures)
				d.leave(developerID)
			}
			deadline := time.Now().Add(awaitTimeout)
			for {
				_, err := d.keys.VerifyAt(t.Context(), key, d.clock.Now())
				if errors.Is(err, models.ErrKeyDisabled) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the key of the member who left still has the verdict %v; logs:\n%s", err, d.logs.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// awaitLog waits until the desk's logs hold text.
func awaitLog(t *testing.T, d *desk, text string) {
	t.Helper()
	deadline := time.Now().Add(awaitTimeout)
	for !strings.Contains(d.logs.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the logs never said %q:\n%s", text, d.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReconcileLeavesHandMadeDevelopersAlone: developers whose id is no
// Discord user id (the local developer "0" of the first start, someone
// outside Discord given a key by crowns keys issue) are never members of
// the server; a reconciliation leaves their keys working, while a real
// member who left loses theirs, whose id has as few digits as a real one
// may (17).
func TestReconcileLeavesHandMadeDevelopersAlone(t *testing.T) {
	d := newDesk(t, deskOptions{})
	handMade := map[string]string{}
	for _, id := range []string{"0", "42", "1234567890123456"} {
		issued, err := d.keys.IssueOrRemind(t.Context(), keys.Developer{DiscordUserID: id}, "cli")
		if err != nil {
			t.Fatal(err)
		}
		handMade[id] = issued.Key
	}
	gone := d.getKey(developerID)
	// One of Discord's first users: a real id of 17 digits, the fewest.
	goneEarly := d.getKey("80351110224678912")
	d.discord.SetMembers(otherDevID)

	report, err := d.bot.Reconcile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if report.DevelopersChecked != 2 || report.Disabled != 2 {
		t.Errorf("report = %+v, want 2 developers checked and 2 disabled", report)
	}
	for id, key := range handMade {
		if _, err := d.keys.VerifyAt(t.Context(), key, d.clock.Now()); err != nil {
			t.Errorf("the key of hand-made developer %s has the verdict %v, want it working", id, err)
		}
	}
	d.assertVerdict(gone, models.ErrKeyDisabled)
	d.assertVerdict(goneEarly, models.ErrKeyDisabled)
}
