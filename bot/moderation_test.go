package bot_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/models"
)

// moderator runs a /keyadmin subcommand as a member with permissions.
func (d *desk) keyadmin(permissions int64, sub string, options ...*discordgo.ApplicationCommandInteractionDataOption) *discordgo.Interaction {
	d.t.Helper()
	return d.slash(moderatorID, otherChannelID, permissions, "keyadmin", sub, options...)
}

func TestModeratorCommandsRefuseOtherMembers(t *testing.T) {
	commands := []struct {
		command, sub string
		options      []*discordgo.ApplicationCommandInteractionDataOption
	}{
		{"keyadmin", "blacklist", []*discordgo.ApplicationCommandInteractionDataOption{userOption(developerID), stringOption("reason", "spam")}},
		{"keyadmin", "unblacklist", []*discordgo.ApplicationCommandInteractionDataOption{userOption(developerID)}},
		{"keyadmin", "info", []*discordgo.ApplicationCommandInteractionDataOption{userOption(developerID)}},
		{"keyadmin", "revoke", []*discordgo.ApplicationCommandInteractionDataOption{userOption(developerID)}},
		{"clan", "weekly", []*discordgo.ApplicationCommandInteractionDataOption{stringOption("tag", "#2CCCP"), stringOption("state", "on")}},
	}
	permissions := []struct {
		name  string
		perms int64
		allow bool
	}{
		{"no permissions", 0, false},
		{"Manage Messages and Kick Members", discordgo.PermissionManageMessages | discordgo.PermissionKickMembers, false},
		{"Ban Members", discordgo.PermissionBanMembers, true},
		{"Manage Server", discordgo.PermissionManageGuild, true},
		{"Administrator", discordgo.PermissionAdministrator, true},
	}
	for _, c := range commands {
		for _, p := range permissions {
			t.Run(c.command+" "+c.sub+"/"+p.name, func(t *testing.T) {
				weekly := &weeklyRecorder{}
				d := newDesk(t, deskOptions{weekly: weekly})
				key := d.getKey(developerID)
				answer := d.answerText(d.slash(moderatorID, otherChannelID, p.perms, c.command, c.sub, c.options...))
				refused := strings.Contains(answer, "Only moderators")
				if refused == p.allow {
					t.Fatalf("answer = %q; want allowed %v", answer, p.allow)
				}
				if !p.allow {
					d.assertVerdict(key, nil)
					if len(weekly.calls()) != 0 {
						t.Error("weekly collection was switched")
					}
				}
			})
		}
	}
}

// TestCommandsFromAnotherServerAreRefused: the bot answers its commands in
// its community server only: an administrator of another server it is in
// moderates nothing here, and a member there gets no key.
func TestCommandsFromAnotherServerAreRefused(t *testing.T) {
	const otherGuildID = "700000000000000999"
	d := newDesk(t, deskOptions{})
	key := d.getKey(developerID)
	blacklist := d.slashIn(otherGuildID, moderatorID, otherChannelID, discordgo.PermissionAdministrator, "keyadmin", "blacklist",
		userOption(developerID), stringOption("reason", "spam"))
	if answer := d.answerText(blacklist); !strings.Contains(answer, "only works in its community server") {
		t.Fatalf("/keyadmin blacklist from another server answered %q, want it refused", answer)
	}
	d.assertVerdict(key, nil)
	if answer := d.answerText(d.slashIn(otherGuildID, otherDevID, keyChannelID, 0, "key", "get")); !strings.Contains(answer, "only works in its community server") {
		t.Fatalf("/key get from another server answered %q, want it refused", answer)
	}
	if dms := d.discord.RequestsTo("POST", "/users/@me/channels"); len(dms) != 1 {
		t.Fatalf("%d direct message channels opened, want only the first developer's", len(dms))
	}
}

func TestBlacklistForbidsTheKeyAndAnyNewOne(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	key := d.getKey(developerID)
	answer := d.answerText(d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", "scraping")))
	if !strings.Contains(answer, "is blacklisted (scraping)") {
		t.Errorf("answer = %q", answer)
	}
	d.assertVerdict(key, models.ErrKeyBlacklisted)
	again := d.answerText(d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", "other reason")))
	if !strings.Contains(again, "was already blacklisted (scraping, by <@"+moderatorID+">") || !strings.Contains(again, "nothing changed") {
		t.Errorf("blacklisting again answered %q", again)
	}

	dmsBefore := len(d.directMessages(developerID))
	for _, via := range vias {
		for _, sub := range []string{"get", "regenerate"} {
			if answer := d.ask(via, keyChannelID, developerID, sub); !strings.Contains(answer, "can't get a developer key") {
				t.Errorf("%s %s by a blacklisted developer answered %q", via, sub, answer)
			}
		}
	}
	if dms := d.directMessages(developerID); len(dms) != dmsBefore {
		t.Errorf("a blacklisted developer got %d direct messages", len(dms)-dmsBefore)
	}
	info, err := d.keys.Info(t.Context(), developerID)
	if err != nil || info.State != models.DeveloperBlacklisted || info.BlacklistedBy != "discord:"+moderatorID {
		t.Errorf("info = %+v, %v", info, err)
	}

	// Unblacklisting allows a new key; the old one stays forbidden.
	if answer := d.answerText(d.keyadmin(moderatorPerms, "unblacklist", userOption(developerID))); !strings.Contains(answer, "no longer blacklisted") {
		t.Errorf("unblacklist answered %q", answer)
	}
	d.assertNewKeyWorks(developerID, key)
	d.assertVerdict(key, models.ErrKeyBlacklisted)
}

func TestBlacklistOfSomeoneWithoutKeyPreventsTheFirstKey(t *testing.T) {
	d := newDesk(t, deskOptions{})
	d.answerText(d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", "ban evasion")))
	if answer := d.ask("slash", keyChannelID, developerID, "get"); !strings.Contains(answer, "can't get a developer key") {
		t.Errorf("answer = %q", answer)
	}
	if len(d.directMessages(developerID)) != 0 {
		t.Error("a key was sent")
	}
}

func TestRevokeMakesTheKeyUnknown(t *testing.T) {
	d := newDesk(t, deskOptions{logChannel: logChannelID})
	key := d.getKey(developerID)
	if answer := d.answerText(d.keyadmin(moderatorPerms, "revoke", userOption(developerID))); !strings.Contains(answer, "is revoked") {
		t.Errorf("answer = %q", answer)
	}
	d.assertVerdict(key, models.ErrUnknownKey)
	if answer := d.answerText(d.keyadmin(moderatorPerms, "revoke", userOption(developerID))); !strings.Contains(answer, "has no current key to revoke") {
		t.Errorf("second revoke answered %q, want that there was nothing to revoke", answer)
	}
	if _, err := d.bot.PostPendingEvents(t.Context()); err != nil {
		t.Fatal(err)
	}
	if posts := strings.Join(d.channelPosts(logChannelID), "\n"); strings.Count(posts, "Key revoked") != 1 {
		t.Errorf("log channel: %q, want one key revoked", posts)
	}
	d.assertNewKeyWorks(developerID, key)
}

// TestModeratorChangesThatChangeNothingSaySo: revoking the key of a
// blacklisted member, blacklisting without a reason, or unblacklisting a
// member who is not blacklisted, changes nothing, and the moderator is
// told so, not that it was done.
func TestModeratorChangesThatChangeNothingSaySo(t *testing.T) {
	t.Run("revoke of a blacklisted member", func(t *testing.T) {
		d := newDesk(t, deskOptions{})
		key := d.getKey(developerID)
		d.answerText(d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", "scraping")))
		if answer := d.answerText(d.keyadmin(moderatorPerms, "revoke", userOption(developerID))); !strings.Contains(answer, "is blacklisted: their key is refused already, so nothing was revoked") {
			t.Errorf("answer = %q", answer)
		}
		d.assertVerdict(key, models.ErrKeyBlacklisted)
	})
	// Blank is what shows nothing: spaces, and the control and zero-width
	// characters strings.TrimSpace leaves.
	for _, reason := range []string{"  ", "\u200b", "\x01 \u200d\t", "\ufeff"} {
		t.Run(fmt.Sprintf("blacklist with the blank reason %q", reason), func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			key := d.getKey(developerID)
			if answer := d.answerText(d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", reason))); !strings.Contains(answer, "needs a reason") {
				t.Errorf("answer = %q", answer)
			}
			d.assertVerdict(key, nil)
		})
	}
	t.Run("unblacklist of a member who is not blacklisted", func(t *testing.T) {
		d := newDesk(t, deskOptions{logChannel: logChannelID})
		key := d.getKey(developerID)
		if answer := d.answerText(d.keyadmin(moderatorPerms, "unblacklist", userOption(developerID))); !strings.Contains(answer, "isn't blacklisted") {
			t.Errorf("answer = %q", answer)
		}
		d.assertVerdict(key, nil)
		if _, err := d.bot.PostPendingEvents(t.Context()); err != nil {
			t.Fatal(err)
		}
		if posts := strings.Join(d.channelPosts(logChannelID), "\n"); strings.Contains(posts, "unblacklisted") {
			t.Errorf("log channel: %q, want no unblacklisting", posts)
		}
	})
}

func TestInfoShowsStateAndTimesButNeverTheKey(t *testing.T) {
	d := newDesk(t, deskOptions{})
	key := d.getKey(developerID)
	d.assertVerdict(key, nil)
	if err := d.keys.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	text, embeds, _ := d.answerOf(d.keyadmin(moderatorPerms, "info", userOption(developerID)))
	if !strings.Contains(text, "<@"+developerID+">") {
		t.Errorf("info text = %q", text)
	}
	created := d.clock.Now().Unix()
	for _, want := range []string{"State: active", "Key created: <t:" + itoa(created) + ":f>", "Last used: <t:" + itoa(created) + ":R>"} {
		if !strings.Contains(embeds, want) {
			t.Errorf("info embed lacks %s: %s", want, embeds)
		}
	}
	if strings.Contains(text+embeds, "crw_") || strings.Contains(text+embeds, key) {
		t.Error("info shows the key")
	}
	if answer := d.answerText(d.keyadmin(moderatorPerms, "info", userOption(otherDevID))); !strings.Contains(answer, "never asked for a developer key") {
		t.Errorf("info of a stranger answered %q", answer)
	}
}

func TestClanWeeklySwitchesTrackedClans(t *testing.T) {
	tests := []struct {
		name, tag, state string
		weekly           *weeklyRecorder
		want             string
		wantCall         string
	}{
		{name: "on", tag: "#2cccp", state: "on", weekly: &weeklyRecorder{}, want: "#2CCCP are on", wantCall: "2CCCP=true"},
		{name: "off", tag: "py0lq", state: "off", weekly: &weeklyRecorder{}, want: "#PY0LQ are off", wantCall: "PY0LQ=false"},
		{name: "letter O read as zero", tag: "PYOLQ", state: "on", weekly: &weeklyRecorder{}, want: "#PY0LQ are on", wantCall: "PY0LQ=true"},
		{name: "already on", tag: "2CCCP", state: "on", weekly: &weeklyRecorder{unchanged: true}, want: "were already on", wantCall: "2CCCP=true"},
		{name: "unknown clan", tag: "2CCCP", state: "off", weekly: &weeklyRecorder{err: models.ErrNotFound}, want: "isn't tracked yet"},
		{name: "not tracked", tag: "2CCCP", state: "on", weekly: &weeklyRecorder{err: models.ErrNotTracked}, want: "isn't tracked yet"},
		{name: "bad tag", tag: "#ABC", state: "on", weekly: &weeklyRecorder{}, want: "illegal characters in tag 'ABC'"},
		{name: "database down", tag: "2CCCP", state: "on", weekly: &weeklyRecorder{err: models.Unavailable("database", 0, errors.New("down"))}, want: "try again in a minute"},
		{name: "not wired", tag: "2CCCP", state: "on", want: "can't be switched from Discord"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := deskOptions{}
			if tt.weekly != nil {
				opts.weekly = tt.weekly
			}
			d := newDesk(t, opts)
			answer := d.answerText(d.slash(moderatorID, otherChannelID, moderatorPerms, "clan", "weekly", stringOption("tag", tt.tag), stringOption("state", tt.state)))
			if !strings.Contains(answer, tt.want) {
				t.Errorf("answer = %q, want %q", answer, tt.want)
			}
			if tt.wantCall != "" {
				if calls := tt.weekly.calls(); len(calls) != 1 || calls[0] != tt.wantCall {
					t.Errorf("SetWeekly calls = %v, want [%s]", calls, tt.wantCall)
				}
			}
		})
	}
}

// weeklyRecorder stands in for clan tracking's weekly switch: it records
// each call and answers with unchanged and err.
type weeklyRecorder struct {
	mu        sync.Mutex
	recorded  []string
	unchanged bool
	err       error
}

func (w *weeklyRecorder) SetWeekly(_ context.Context, tag string, on bool) (bool, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.recorded = append(w.recorded, tag+"="+strconv.FormatBool(on))
	return !w.unchanged && w.err == nil, w.err
}

func (w *weeklyRecorder) calls() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.recorded...)
}
