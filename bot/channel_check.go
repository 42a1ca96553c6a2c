package bot

import (
	"context"
	"errors"
	"net/http"

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
	b.checkChannel(ctx, b.cfg.KeyChannelID, "key channel", "CROWNS_DISCORD_KEY_CHANNEL_ID")
	if b.cfg.LogChannelID != "" {
		b.checkChannel(ctx, b.cfg.LogChannelID, "log channel", "CROWNS_DISCORD_LOG_CHANNEL_ID")
	}
}

// checkChannel checks one configured channel, named by what it is for and
// the setting that gives it, within RequestTimeout.
func (b *Bot) checkChannel(ctx context.Context, channelID, purpose, setting string) {
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
