package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// keyAdmin runs a /keyadmin subcommand for a moderator (the caller has
// checked the permission).
func (b *Bot) keyAdmin(ctx context.Context, moderatorID string, sub *discordgo.ApplicationCommandInteractionDataOption) answer {
	if sub.Name == subTop {
		return b.topKeys(ctx, sub)
	}
	target := optionValue(sub, optionUser)
	if target == "" {
		return answer{text: textUnknownCommand}
	}
	actor := actorFor(moderatorID)
	switch sub.Name {
	case subBlacklist:
		return b.blacklist(ctx, target, optionValue(sub, optionReason), actor)
	case subUnblacklist:
		if err := b.deps.Keys.Unblacklist(ctx, target, actor); err != nil {
			return b.moderationRefusal(ctx, subUnblacklist, target, err)
		}
		return answer{text: textUnblacklistDone(target)}
	case subInfo:
		info, err := b.deps.Keys.Info(ctx, target)
		if err != nil {
			return b.moderationRefusal(ctx, subInfo, target, err)
		}
		embed := infoEmbed(info)
		if usage := b.usageField(ctx, info); usage != nil {
			embed.Fields = append(embed.Fields, usage)
		}
		return answer{text: textInfoHeading(target), embeds: []*discordgo.MessageEmbed{embed}}
	case subRevoke:
		reason := optionValue(sub, optionReason)
		if blank(reason) {
			reason = textRevokeDefaultReason
		}
		if err := b.deps.Keys.Revoke(ctx, target, actor, reason); err != nil {
			return b.moderationRefusal(ctx, subRevoke, target, err)
		}
		return answer{text: textRevokeDone(target)}
	}
	return answer{text: textUnknownCommand}
}

// blacklist blacklists target for a moderator (actor), with a reason,
// which must say something: it is what the log channel and later
// moderators are shown, and what the answer repeats, with any key in it
// redacted as the keys service stores it.
func (b *Bot) blacklist(ctx context.Context, target, reason, actor string) answer {
	if blank(reason) {
		return answer{text: textNotAccepted(textBlacklistReasonMissing)}
	}
	if err := b.deps.Keys.Blacklist(ctx, target, reason, actor); err != nil {
		return b.moderationRefusal(ctx, subBlacklist, target, err)
	}
	// The reason as it is kept and posted: a key pasted into it redacted.
	return answer{text: textBlacklistDone(target, keys.Redact(reason))}
}

// moderationRefusal turns an error of a moderator command into the
// moderator's answer, logging what they do not see.
func (b *Bot) moderationRefusal(ctx context.Context, command, target string, err error) answer {
	var validation *models.ValidationError
	switch {
	case command == subBlacklist && errors.Is(err, models.ErrDeveloperBlacklisted):
		return b.alreadyBlacklisted(ctx, target)
	case errors.Is(err, models.ErrDeveloperBlacklisted):
		return answer{text: textBlacklistedNoRevoke(target)}
	case errors.Is(err, keys.ErrNotBlacklisted):
		return answer{text: textNoRecord(target, subUnblacklist)}
	case errors.Is(err, models.ErrNotFound):
		return answer{text: textNoRecord(target, command)}
	case errors.As(err, &validation):
		return answer{text: textNotAccepted(validation.Message)}
	case errors.Is(err, models.ErrUnavailable):
		b.log.WarnContext(ctx, "key service unavailable", "doing", command, "user", target, "error", err)
		return answer{text: textTryAgainSoon}
	default:
		b.log.ErrorContext(ctx, "key service failed", "doing", command, "user", target, "error", err)
		return answer{text: textSomethingWentWrong}
	}
}

// alreadyBlacklisted answers a moderator who blacklisted a developer a
// moderator had blacklisted before: nothing changed, and the first
// blacklisting (its reason, who and when) stands.
func (b *Bot) alreadyBlacklisted(ctx context.Context, target string) answer {
	info, err := b.deps.Keys.Info(ctx, target)
	if err != nil {
		b.log.WarnContext(ctx, "cannot read a blacklisted developer", "user", target, "error", err)
		return answer{text: textAlreadyBlacklisted(target, "")}
	}
	return answer{text: textAlreadyBlacklisted(target, blacklistingWords(info))}
}

// blacklistingWords describes a developer's blacklisting: its reason, who
// and when.
func blacklistingWords(info keys.DeveloperInfo) string {
	return fmt.Sprintf("%s, by %s, %s", orDash(info.BlacklistReason), actorWords(info.BlacklistedBy), discordTime(info.BlacklistedAt, "f"))
}

// optionValue returns the trimmed value of a subcommand's option as a
// string (a user option's value is the user id), or "" when absent.
func optionValue(sub *discordgo.ApplicationCommandInteractionDataOption, name string) string {
	for _, option := range sub.Options {
		if option.Name == name {
			if value, ok := option.Value.(string); ok {
				return strings.TrimSpace(value)
			}
		}
	}
	return ""
}
