package bot_test

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/bot/discordtest"
)

// readyInGuild is the READY event of a bot that is in the community
// server.
func readyInGuild() *discordgo.Ready {
	return &discordgo.Ready{
		User:        &discordgo.User{ID: discordtest.DefaultBotUserID},
		Application: &discordgo.Application{ID: discordtest.DefaultApplicationID},
		Guilds:      []*discordgo.Guild{{ID: guildID}},
	}
}

// TestReadyChecksTheConfiguredChannels: at READY the bot looks up the key
// channel and the log channel, and logs an error naming the setting of
// one it cannot see or that belongs to another server, and a warning for
// one of a type it is not meant for; a lookup Discord fails for another
// reason is a warning that blames no setting. In every case it goes on to
// register its commands.
func TestReadyChecksTheConfiguredChannels(t *testing.T) {
	const otherGuildID = "700000000000000999"
	cases := []struct {
		name string
		// arrange changes the fake Discord after the desk filled it with
		// the community server's channels.
		arrange func(*discordtest.Server)
		// want are texts the logs must hold; wantNot texts they must not.
		want, wantNot []string
	}{
		{
			name:    "both in the community server",
			arrange: func(*discordtest.Server) {},
			wantNot: []string{"CROWNS_DISCORD_KEY_CHANNEL_ID", "CROWNS_DISCORD_LOG_CHANNEL_ID", "discord request failed"},
		},
		{
			name: "key channel unknown",
			arrange: func(s *discordtest.Server) {
				s.Fail(discordtest.Rule{Method: "GET", Path: "/channels/" + keyChannelID, Failure: discordtest.NotFound})
			},
			want:    []string{"level=ERROR", "the key channel " + keyChannelID + " (CROWNS_DISCORD_KEY_CHANNEL_ID) is not a channel the bot can see", "Unknown Channel"},
			wantNot: []string{"CROWNS_DISCORD_LOG_CHANNEL_ID"},
		},
		{
			name: "log channel hidden from the bot",
			arrange: func(s *discordtest.Server) {
				s.Fail(discordtest.Rule{Method: "GET", Path: "/channels/" + logChannelID, Failure: discordtest.Forbidden})
			},
			want:    []string{"level=ERROR", "the log channel " + logChannelID + " (CROWNS_DISCORD_LOG_CHANNEL_ID) is not a channel the bot can see"},
			wantNot: []string{"CROWNS_DISCORD_KEY_CHANNEL_ID"},
		},
		{
			name: "log channel in another server",
			arrange: func(s *discordtest.Server) {
				s.AddChannels(discordgo.Channel{ID: logChannelID, GuildID: otherGuildID, Type: discordgo.ChannelTypeGuildText})
			},
			want: []string{"level=ERROR", "the log channel " + logChannelID + " (CROWNS_DISCORD_LOG_CHANNEL_ID) is in the Discord server " +
				otherGuildID + ", not in the community server " + guildID},
			wantNot: []string{"CROWNS_DISCORD_KEY_CHANNEL_ID"},
		},
		{
			name: "key channel in another server",
			arrange: func(s *discordtest.Server) {
				s.AddChannels(discordgo.Channel{ID: keyChannelID, GuildID: otherGuildID, Type: discordgo.ChannelTypeGuildText})
			},
			want:    []string{"the key channel " + keyChannelID + " (CROWNS_DISCORD_KEY_CHANNEL_ID) is in the Discord server " + otherGuildID},
			wantNot: []string{"CROWNS_DISCORD_LOG_CHANNEL_ID"},
		},
		{
			name: "key channel a category",
			arrange: func(s *discordtest.Server) {
				s.AddChannels(discordgo.Channel{ID: keyChannelID, GuildID: guildID, Type: discordgo.ChannelTypeGuildCategory})
			},
			want:    []string{"level=WARN", "the key channel " + keyChannelID + " (CROWNS_DISCORD_KEY_CHANNEL_ID) is a category, not a text channel"},
			wantNot: []string{"level=ERROR", "CROWNS_DISCORD_LOG_CHANNEL_ID"},
		},
		{
			name: "key channel an announcement channel",
			arrange: func(s *discordtest.Server) {
				s.AddChannels(discordgo.Channel{ID: keyChannelID, GuildID: guildID, Type: discordgo.ChannelTypeGuildNews})
			},
			want:    []string{"level=WARN", "(CROWNS_DISCORD_KEY_CHANNEL_ID) is an announcement channel, not a text channel"},
			wantNot: []string{"CROWNS_DISCORD_LOG_CHANNEL_ID"},
		},
		{
			name: "log channel an announcement channel",
			arrange: func(s *discordtest.Server) {
				s.AddChannels(discordgo.Channel{ID: logChannelID, GuildID: guildID, Type: discordgo.ChannelTypeGuildNews})
			},
			wantNot: []string{"CROWNS_DISCORD_KEY_CHANNEL_ID", "CROWNS_DISCORD_LOG_CHANNEL_ID"},
		},
		{
			name: "log channel a forum",
			arrange: func(s *discordtest.Server) {
				s.AddChannels(discordgo.Channel{ID: logChannelID, GuildID: guildID, Type: discordgo.ChannelTypeGuildForum})
			},
			want:    []string{"level=WARN", "the log channel " + logChannelID + " (CROWNS_DISCORD_LOG_CHANNEL_ID) is a forum channel, not a text channel"},
			wantNot: []string{"CROWNS_DISCORD_KEY_CHANNEL_ID"},
		},
		{
			name: "Discord failing",
			arrange: func(s *discordtest.Server) {
				s.Fail(discordtest.Rule{Method: "GET", Path: "/channels/*", Failure: discordtest.ServerError})
			},
			want:    []string{"level=WARN", "discord request failed", "look up the key channel", "look up the log channel"},
			wantNot: []string{"level=ERROR"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{logChannel: logChannelID})
			tc.arrange(d.discord)
			d.bot.HandleReady(t.Context(), readyInGuild())

			for _, channel := range []string{keyChannelID, logChannelID} {
				if n := len(d.discord.RequestsTo("GET", "/channels/"+channel)); n == 0 {
					t.Errorf("channel %s never looked up", channel)
				}
			}
			if puts := d.discord.RequestsTo("PUT", "/applications/*/guilds/"+guildID+"/commands"); len(puts) != 1 {
				t.Errorf("commands registered %d times, want once", len(puts))
			}
			logs := d.logs.String()
			for _, text := range tc.want {
				if !strings.Contains(logs, text) {
					t.Errorf("logs lack %q:\n%s", text, logs)
				}
			}
			for _, text := range tc.wantNot {
				if strings.Contains(logs, text) {
					t.Errorf("logs hold %q:\n%s", text, logs)
				}
			}
		})
	}
}

// TestReadyWithoutALogChannelLooksUpOnlyTheKeyChannel: no log channel is
// set, so none is looked up.
func TestReadyWithoutALogChannelLooksUpOnlyTheKeyChannel(t *testing.T) {
	d := newDesk(t, deskOptions{})
	d.bot.HandleReady(t.Context(), readyInGuild())
	var looked []string
	for _, r := range d.discord.RequestsTo("GET", "/channels/*") {
		looked = append(looked, r.Path)
	}
	if len(looked) != 1 || looked[0] != "/channels/"+keyChannelID {
		t.Errorf("channels looked up: %v, want only the key channel", looked)
	}
}
