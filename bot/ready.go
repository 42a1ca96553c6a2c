package bot

import (
	"context"
	"slices"

	"github.com/bwmarrin/discordgo"
)

// HandleReady handles a READY event: a start-up or a reconnection that
// was not a resume. It checks the bot is in the community server,
// checks the configured channels are the community server's, registers
// the slash commands there and reconciles the keys of developers with the
// member list.
func (b *Bot) HandleReady(ctx context.Context, ready *discordgo.Ready) {
	if ready == nil || ready.User == nil {
		return
	}
	applicationID := ready.User.ID
	if ready.Application != nil && ready.Application.ID != "" {
		applicationID = ready.Application.ID
	}
	inGuild := slices.ContainsFunc(ready.Guilds, func(g *discordgo.Guild) bool { return g.ID == b.cfg.GuildID })
	if !inGuild {
		b.log.ErrorContext(ctx, textNotInGuild(b.cfg.GuildID, inviteURL(applicationID)))
		return
	}
	b.checkChannels(ctx)
	if err := b.registerCommands(ctx, applicationID); err != nil {
		b.logDiscordFailure(ctx, "register slash commands", err)
	}
	_ = b.reconcileAndLog(ctx)
}
