package bot

import (
	"context"
	"errors"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/models"
)

// Actors and reasons the bot writes into key events on its own behalf.
const (
	actorBot         = "bot"
	reasonLeftServer = "left server"
)

// actorFor names a Discord user as the actor of a key event.
func actorFor(userID string) string { return "discord:" + userID }

// HandleGuildMemberRemove disables the keys of a member who left the
// community server. The keys service drops them from its cache, so the
// API refuses them on the next request this process handles. When that
// fails (the database, say), a reconciliation follows soon, and again
// until one succeeds. Rejoining re-enables nothing until the member asks
// for their key again.
func (b *Bot) HandleGuildMemberRemove(ctx context.Context, event *discordgo.GuildMemberRemove) {
	if event == nil || event.Member == nil || event.User == nil || event.GuildID != b.cfg.GuildID {
		return
	}
	userID := event.User.ID
	err := b.deps.Keys.Disable(ctx, userID, actorBot, reasonLeftServer)
	switch {
	case err == nil:
		b.log.InfoContext(ctx, "member left the community server; their key is disabled", "user", userID)
	case errors.Is(err, models.ErrNotFound):
		b.log.DebugContext(ctx, "member without a key left the community server", "user", userID)
	default:
		b.log.ErrorContext(ctx, "cannot disable the key of a member who left; a reconciliation retries soon", "user", userID, "error", err)
		b.oweReconciliation()
	}
}
