package bot

import (
	"context"
	"errors"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/models"
)

// clanWeekly is "/clan weekly tag on|off": switch weekly snapshots of a
// tracked clan.
func (b *Bot) clanWeekly(ctx context.Context, moderatorID string, sub *discordgo.ApplicationCommandInteractionDataOption) answer {
	if b.deps.Weekly == nil {
		return answer{text: textWeeklyUnavailable}
	}
	tag, err := models.NormalizeTag(optionValue(sub, optionTag))
	if err != nil {
		return answer{text: textNotAccepted(err.Error())}
	}
	on := optionValue(sub, optionState) == stateOn
	changed, err := b.deps.Weekly.SetWeekly(ctx, tag, on)
	switch {
	case err == nil && !changed:
		return answer{text: textWeeklyUnchanged(tag, on)}
	case err == nil:
		b.log.InfoContext(ctx, "weekly collection switched", "tag", tag, "on", on, "moderator", moderatorID)
		return answer{text: textWeeklySwitched(tag, on)}
	case errors.Is(err, models.ErrNotTracked), errors.Is(err, models.ErrNotFound):
		return answer{text: textClanNotTracked(tag)}
	case errors.Is(err, models.ErrUnavailable):
		b.log.WarnContext(ctx, "cannot switch weekly collection", "tag", tag, "error", err)
		return answer{text: textTryAgainSoon}
	default:
		b.log.ErrorContext(ctx, "cannot switch weekly collection", "tag", tag, "error", err)
		return answer{text: textSomethingWentWrong}
	}
}
