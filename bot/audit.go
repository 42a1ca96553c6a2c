package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// Reading the key-event outbox for the log channel.
const (
	// AuditCursorName names the log channel's saved position in the
	// key-event outbox.
	AuditCursorName = "audit-log"
	auditBatchSize  = 50
)

// PostPendingEvents posts to the log channel, in order, every key event
// after the saved position, saving the position after each post; the
// owner of a key revoked by a leaked-key report is then told by direct
// message. A failed
// post stops there and returns the error: the event is posted by a later
// call, never skipped (an event may be posted twice if the process stops
// between a post and the save). Without a log channel it does nothing.
func (b *Bot) PostPendingEvents(ctx context.Context) (posted int, err error) {
	if b.cfg.LogChannelID == "" {
		return 0, nil
	}
	position, err := b.deps.Cursors.BotCursorPosition(ctx, AuditCursorName)
	if err != nil {
		return 0, fmt.Errorf("read the log channel's outbox position: %w", err)
	}
	for {
		events, err := b.deps.Keys.Events(ctx, position, auditBatchSize)
		if err != nil {
			return posted, fmt.Errorf("read key events after %d: %w", position, err)
		}
		for _, event := range events {
			_, err := b.session.ChannelMessageSendComplex(b.cfg.LogChannelID, &discordgo.MessageSend{
				Embeds:          []*discordgo.MessageEmbed{auditEmbed(event)},
				AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}},
			}, discordgo.WithContext(ctx))
			if err != nil {
				return posted, fmt.Errorf("post key event %d to the log channel: %s", event.ID, describeDiscordError(err))
			}
			position = event.ID
			if err := b.deps.Cursors.SaveBotCursorPosition(ctx, AuditCursorName, position, b.clock.Now()); err != nil {
				return posted, fmt.Errorf("save the log channel's outbox position: %w", err)
			}
			posted++
			b.tellOfLeak(ctx, event)
		}
		if len(events) < auditBatchSize {
			return posted, nil
		}
	}
}

// tellOfLeak tells developers by direct message that a leaked-key report
// revoked their key, and where it was found, once the event is posted (at
// most once: a failure is logged, not retried).
func (b *Bot) tellOfLeak(ctx context.Context, event models.KeyEvent) {
	url, ok := strings.CutPrefix(event.Reason, keys.LeakReasonPrefix)
	if event.Action != models.KeyActionRevoked || event.Actor != keys.ActorLeakReport || !ok {
		return
	}
	err := b.sendDirectMessage(ctx, event.DiscordUserID, textLeakedKeyMessage(url, slashStyle()))
	switch {
	case err == nil:
	case isDMClosed(err):
		b.log.InfoContext(ctx, "member does not accept direct messages; not told of the leaked key", "user", event.DiscordUserID)
	default:
		b.logDiscordFailure(ctx, "tell a member their key was reported leaked", err)
	}
}

// auditLoop posts pending key events every AuditPollInterval, and as
// soon as this process commits a transition, until ctx ends. After a failure it waits longer between attempts (doubling, at
// most maxRetryDelay, measured on the bot's clock) and logs each failure.
func (b *Bot) auditLoop(ctx context.Context) {
	if b.cfg.LogChannelID == "" {
		return
	}
	ticker := time.NewTicker(b.cfg.AuditPollInterval)
	defer ticker.Stop()
	var (
		failures int
		retryAt  time.Time
	)
	for {
		if now := b.clock.Now(); !now.Before(retryAt) {
			_, err := b.PostPendingEvents(ctx)
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				failures++
				wait := auditRetryDelay(b.cfg.AuditPollInterval, failures)
				retryAt = now.Add(wait)
				b.log.WarnContext(ctx, "cannot post key events to the log channel; will retry", "error", err, "retryIn", wait)
			case failures > 0:
				failures = 0
				b.log.InfoContext(ctx, "posting key events to the log channel again")
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-b.auditNudge:
		}
	}
}

// nudgeAudit wakes the audit loop without blocking; a wake-up already
// pending covers this one too.
func (b *Bot) nudgeAudit() {
	select {
	case b.auditNudge <- struct{}{}:
	default:
	}
}

// auditRetryDelay is the wait after the given number of failures in a
// row: the house backoff from twice the poll interval to maxRetryDelay.
func auditRetryDelay(interval time.Duration, failures int) time.Duration {
	return backoff.Policy{First: 2 * interval, Max: maxRetryDelay}.Delay(failures)
}
