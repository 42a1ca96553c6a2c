package bot_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/bot/discordtest"
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
