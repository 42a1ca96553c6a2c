package bot

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/bwmarrin/discordgo"
)

// checkChannels looks up the key channel and the log channel, when one is
// set, and logs an error for one the bot cannot see or that belongs to
// another server than the community server: members would be sent to a
// key channel they cannot use, and usage alerts would be posted where no
// moderator of the community server can press their Blacklist button.
// A lookup that fails for another reason (Discord unreachable, a 5xx) is
// logged as a warning and proves nothing about the channel. Nothing is
// refused: the bot goes on as configured.
func (b *Bot) checkChannels(ctx context.Context) {
	// Members type their commands in the key channel; the bot posts in
	// the log channel, which may be an announcement channel too.
	b.checkChannel(ctx, b.cfg.KeyChannelID, "key channel", "CROWNS_DISCORD_KEY_CHANNEL_ID",
		discordgo.ChannelTypeGuildText)
	if b.cfg.LogChannelID != "" {
		b.checkChannel(ctx, b.cfg.LogChannelID, "log channel", "CROWNS_DISCORD_LOG_CHANNEL_ID",
			discordgo.ChannelTypeGuildText, discordgo.ChannelTypeGuildNews)
	}
}

// checkChannel checks one configured channel, named by what it is for and
// the setting that gives it, within RequestTimeout; a channel of none of
// the types it is meant for (a category, a voice or forum channel) is
// warned of.
func (b *Bot) checkChannel(ctx context.Context, channelID, purpose, setting string, meantFor ...discordgo.ChannelType) {
	ctx, cancel := b.requestContext(ctx)
	defer cancel()
	channel, err := b.session.Channel(channelID, discordgo.WithContext(ctx))
	switch {
	case isChannelHidden(err):
		b.log.ErrorContext(ctx, textChannelHidden(purpose, channelID, setting), "discord", describeDiscordError(err))
	case err != nil:
		b.logDiscordFailure(ctx, "look up the "+purpose, err)
	case channel.GuildID != b.cfg.GuildID:
		b.log.ErrorContext(ctx, textChannelElsewhere(purpose, channelID, setting, channel.GuildID, b.cfg.GuildID))
	case !slices.Contains(meantFor, channel.Type):
		b.log.WarnContext(ctx, textChannelOfWrongType(purpose, channelID, setting, channelTypeName(channel.Type)))
	}
}

// isChannelHidden reports whether Discord answered a channel lookup that
// the channel does not exist or the bot may not see it (404 Unknown
// Channel, 403 Missing Access).
func isChannelHidden(err error) bool {
	var restErr *discordgo.RESTError
	if !errors.As(err, &restErr) || restErr.Response == nil {
		return false
	}
	status := restErr.Response.StatusCode
	return status == http.StatusNotFound || status == http.StatusForbidden
}

// channelTypeName names a channel type as Discord's client shows it, with
// its article.
func channelTypeName(t discordgo.ChannelType) string {
	switch t {
	case discordgo.ChannelTypeGuildText:
		return "a text channel"
	case discordgo.ChannelTypeGuildNews:
		return "an announcement channel"
	case discordgo.ChannelTypeGuildVoice:
		return "a voice channel"
	case discordgo.ChannelTypeGuildStageVoice:
		return "a stage channel"
	case discordgo.ChannelTypeGuildCategory:
		return "a category"
	case discordgo.ChannelTypeGuildForum:
		return "a forum channel"
	case discordgo.ChannelTypeGuildMedia:
		return "a media channel"
	}
	return "a channel of type " + strconv.Itoa(int(t))
}
