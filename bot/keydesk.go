package bot

import (
	"context"
	"errors"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// delivery says why a key is being sent, for the wording of the DM and
// of the answer in the channel.
type delivery int

const (
	deliveryNew delivery = iota
	deliveryReminder
	deliveryReenabled
	deliveryRegenerated
)

// getKey is "/key get": issue a key, or remind the member of theirs
// (re-enabling it if they had left and came back), by direct message. A
// member the bot owes a key it could not send gets one get through the
// cool-down, to receive it, sent or not: a reminder of their active key
// only, which changes nothing and posts nothing. A get the keys service
// refuses uses no cool-down, and leaves an owed key owed.
func (b *Bot) getKey(ctx context.Context, who requester, style commandStyle) answer {
	owedGet, now := false, b.clock.Now()
	if wait := b.coolDowns.take(keyChanges, who.userID, now); wait > 0 {
		if !b.coolDowns.takeOwedKey(who.userID) {
			return answer{text: textKeyChangeCoolDown(wait)}
		}
		active, err := b.hasActiveKey(ctx, who.userID)
		if err != nil {
			// Cannot tell: the key stays owed for the get that can.
			b.coolDowns.oweKey(who.userID, true)
			return b.keyRefusal(ctx, "issue or remind a key", who, err, style)
		}
		if owedGet = active; !owedGet {
			return answer{text: textKeyChangeCoolDown(wait)}
		}
	}
	issued, err := b.deps.Keys.IssueOrRemind(ctx, keys.Developer{DiscordUserID: who.userID, DisplayName: who.displayName}, actorFor(who.userID))
	if err != nil {
		// Refused (blacklisted, the database out of reach): nothing
		// handed out, nothing posted, so the member's next key command
		// need not wait; an owed get stays owed.
		b.coolDowns.giveBack(keyChanges, who.userID, now)
		if owedGet {
			b.coolDowns.oweKey(who.userID, true)
		}
		return b.keyRefusal(ctx, "issue or remind a key", who, err, style)
	}
	kind := deliveryReminder
	switch {
	case issued.Created:
		kind = deliveryNew
	case issued.Reenabled:
		kind = deliveryReenabled
	}
	return b.deliver(ctx, who, issued.Key, kind, style, !owedGet)
}

// hasActiveKey reports whether the member has an active key, which a get
// only reminds them of. An unknown member has none; any other failure to
// tell is an error.
func (b *Bot) hasActiveKey(ctx context.Context, userID string) (bool, error) {
	info, err := b.deps.Keys.Info(ctx, userID)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return false, nil
	case err != nil:
		return false, err
	}
	return info.State == models.DeveloperActive, nil
}

// regenerateKey is "/key regenerate". The first request asks for a
// confirmation; the same command again, or the button, within the window
// replaces the key. byButton says the confirmation button was pressed.
func (b *Bot) regenerateKey(ctx context.Context, who requester, style commandStyle, byButton bool) answer {
	if ask, confirmed := b.confirm(ctx, who, style, byButton, confirmation{
		action: subRegenerate, question: textConfirmRegenerate(style), expired: textConfirmationExpired(style),
	}); !confirmed {
		return ask
	}
	issued, err := b.deps.Keys.Regenerate(ctx, keys.Developer{DiscordUserID: who.userID, DisplayName: who.displayName}, actorFor(who.userID))
	if err != nil {
		b.pending.drop(who.userID, subRegenerate)
		return b.keyRefusal(ctx, "regenerate a key", who, err, style)
	}
	return b.deliver(ctx, who, issued.Key, deliveryRegenerated, style, true)
}

// confirmation describes a command that waits for its confirmation.
type confirmation struct {
	// action is subRegenerate or subRevoke.
	action string
	// question asks to confirm; expired answers a late button press.
	question, expired string
}

// confirm reports whether the member confirmed c within its window (the
// command again, or the button); if not, it returns what to answer: the
// question (a new use of the command, subject to its cool-down, which
// replaces any other change pending), or, for a button, that it expired or
// that the member asked for the other change since.
func (b *Bot) confirm(ctx context.Context, who requester, style commandStyle, byButton bool, c confirmation) (answer, bool) {
	now := b.clock.Now()
	outcome, other := b.pending.take(who.userID, c.action, now)
	switch {
	case outcome == changeConfirmed:
		return answer{}, true
	case byButton && outcome == changeConfirmedBefore:
		return answer{text: textConfirmedBefore(style, other)}, false
	case byButton && outcome == otherChangePending:
		return answer{text: textConfirmationReplaced(style, other)}, false
	case byButton:
		return answer{text: c.expired}, false
	}
	if wait := b.coolDowns.take(keyChanges, who.userID, now); wait > 0 {
		return answer{text: textKeyChangeCoolDown(wait)}, false
	}
	ask, asked := b.askToConfirm(ctx, who, style, now, c.action, c.question)
	if !asked {
		// Nothing to change, nothing posted: the member's next key
		// command (the /key get the answer may point to) need not wait.
		b.coolDowns.giveBack(keyChanges, who.userID, now)
		return ask, false
	}
	ask.coolDownTaken = now
	return ask, false
}

// askToConfirm checks that the member has a key they may replace or
// revoke, then records the request as their pending key change and asks
// them, with question, to confirm action (subRegenerate or subRevoke);
// asked is false when it answers why not instead.
func (b *Bot) askToConfirm(ctx context.Context, who requester, style commandStyle, now time.Time, action, question string) (a answer, asked bool) {
	info, err := b.deps.Keys.Info(ctx, who.userID)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return answer{text: textNoKeyYet(style)}, false
	case err != nil:
		return b.keyRefusal(ctx, "look up a developer", who, err, style), false
	case info.State == models.DeveloperBlacklisted:
		return answer{text: textBlacklistedDeveloper}, false
	case info.State == models.DeveloperWithoutKey:
		return answer{text: textNoKeyInUse(info, style)}, false
	}
	b.pending.ask(who.userID, action, now)
	ask := answer{text: question, confirmAction: action}
	if style.slash {
		ask.confirmFor = who.userID
	}
	return ask, true
}

// answered settles the answer a to the member userID, which Discord took
// or not (delivered): a question to confirm a key change the member did
// not see confirms nothing, so that running the command again, as they
// will, asks again instead of making the change unseen, and holds them to
// no cool-down: the failure was not theirs.
func (b *Bot) answered(userID string, a answer, delivered bool) {
	if !delivered && a.confirmAction != "" {
		b.pending.withdraw(userID, a.confirmAction)
		if !a.coolDownTaken.IsZero() {
			b.coolDowns.giveBack(keyChanges, userID, a.coolDownTaken)
		}
	}
}

// deliver sends the key by direct message and says in the channel how
// that went, never with the key. A key it could not send is owed to the
// member (their next /key get skips the cool-down) when mayOwe.
func (b *Bot) deliver(ctx context.Context, who requester, key string, kind delivery, style commandStyle, mayOwe bool) answer {
	err := b.sendDirectMessage(ctx, who.userID, textKeyMessage(key, kind, style))
	b.coolDowns.oweKey(who.userID, mayOwe && err != nil)
	switch {
	case err == nil:
		return answer{text: textKeySent(kind)}
	case isDMClosed(err):
		b.metrics.directMessageFailed(true)
		b.log.InfoContext(ctx, "member does not accept direct messages; key not sent", "user", who.userID)
		return answer{text: textDirectMessagesClosed(kind, style)}
	default:
		b.metrics.directMessageFailed(false)
		b.logDiscordFailure(ctx, "send a key by direct message", err)
		return answer{text: textDirectMessageFailed(kind, style)}
	}
}

// sendDirectMessage opens (or reuses) the DM channel with a user and
// posts text there, mentioning no one, within DirectMessageTimeout: a
// direct message Discord keeps rate-limiting must leave time to answer.
func (b *Bot) sendDirectMessage(ctx context.Context, userID, text string) error {
	ctx, cancel := context.WithTimeout(ctx, b.cfg.DirectMessageTimeout)
	defer cancel()
	channel, err := b.session.UserChannelCreate(userID, discordgo.WithContext(ctx))
	if err != nil {
		return err
	}
	_, err = b.session.ChannelMessageSendComplex(channel.ID, &discordgo.MessageSend{
		Content:         text,
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}},
	}, discordgo.WithContext(ctx))
	return err
}

// keyRefusal turns an error of the key service into the member's answer,
// logging what the member does not see.
func (b *Bot) keyRefusal(ctx context.Context, doing string, who requester, err error, style commandStyle) answer {
	switch {
	case errors.Is(err, models.ErrDeveloperBlacklisted), errors.Is(err, models.ErrKeyBlacklisted):
		return answer{text: textBlacklistedDeveloper}
	case errors.Is(err, models.ErrNotFound):
		return answer{text: textNoKeyYet(style)}
	case errors.Is(err, models.ErrUnavailable):
		b.log.WarnContext(ctx, "key service unavailable", "doing", doing, "user", who.userID, "error", err)
		return answer{text: textTryAgainSoon}
	default:
		b.log.ErrorContext(ctx, "key service failed", "doing", doing, "user", who.userID, "error", err)
		return answer{text: textSomethingWentWrong}
	}
}
