package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/internal/outage"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// Reading the key-event outbox for the log channel and for the owners of
// leaked keys.
const (
	// AuditCursorName names the log channel's saved position in the
	// key-event outbox.
	AuditCursorName = "audit-log"
	// LeakNoticeCursorName names the saved position of the direct
	// messages to owners of keys revoked by a leaked-key report.
	LeakNoticeCursorName = "leak-notices"
	auditBatchSize       = 50
	// leakNoticeMaxAge: an owner is told of a leak revocation no older
	// than this (a bot started after a long stop, or for the first time,
	// does not message everyone of the past).
	leakNoticeMaxAge = 24 * time.Hour
)

// PostPendingEvents posts to the log channel, in order, every key event
// after the saved position, saving the position after each post. A failed
// post stops there and returns the error: the event is posted by a later
// call, never skipped (an event may be posted twice if the process stops
// between a post and the save). Only a post Discord refuses for its body,
// which no later call would get through, is logged with the event and
// passed over, so that the events after it are posted. Without a log
// channel it does nothing.
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
			err := b.postToLogChannel(ctx, &discordgo.MessageSend{Embeds: []*discordgo.MessageEmbed{auditEmbed(event)}})
			switch {
			case err == nil:
				posted++
			case isRefusedMessage(err):
				b.log.ErrorContext(ctx, "Discord refused the log channel's post of a key event; passed over",
					"event", event.ID, "action", event.Action, "user", event.DiscordUserID, "discord", describeDiscordError(err))
			default:
				return posted, fmt.Errorf("post key event %d to the log channel: %s", event.ID, describeDiscordError(err))
			}
			position = event.ID
			if err := b.deps.Cursors.SaveBotCursorPosition(ctx, AuditCursorName, position, b.clock.Now()); err != nil {
				return posted, fmt.Errorf("save the log channel's outbox position: %w", err)
			}
		}
		if len(events) < auditBatchSize {
			return posted, nil
		}
	}
}

// postToLogChannel posts message to the log channel, pinging no one,
// within RequestTimeout.
func (b *Bot) postToLogChannel(ctx context.Context, message *discordgo.MessageSend) error {
	ctx, cancel := b.requestContext(ctx)
	defer cancel()
	message.AllowedMentions = &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
	_, err := b.session.ChannelMessageSendComplex(b.cfg.LogChannelID, message, discordgo.WithContext(ctx))
	return err
}

// TellLeakedKeyOwners tells by direct message the owner of every key a
// leaked-key report revoked since its saved position in the key-event
// outbox (log channel or not), and where the key was found; revocations
// older than leakNoticeMaxAge are passed over. An owner who does not take
// the message (direct messages closed, or another lasting refusal) is
// logged and passed over. A passing failure (Discord down or slow, rate
// limits) stops there and returns the error: that owner is told by a
// later call, never skipped (told twice if the process stops between a
// message and the save). It returns how many messages it sent.
func (b *Bot) TellLeakedKeyOwners(ctx context.Context) (told int, err error) {
	position, err := b.deps.Cursors.BotCursorPosition(ctx, LeakNoticeCursorName)
	if err != nil {
		return 0, fmt.Errorf("read the leak notices' outbox position: %w", err)
	}
	saved := position
	save := func() error {
		if position == saved {
			return nil
		}
		if err := b.deps.Cursors.SaveBotCursorPosition(ctx, LeakNoticeCursorName, position, b.clock.Now()); err != nil {
			return fmt.Errorf("save the leak notices' outbox position: %w", err)
		}
		saved = position
		return nil
	}
	for {
		events, err := b.deps.Keys.Events(ctx, position, auditBatchSize)
		if err != nil {
			return told, fmt.Errorf("read key events after %d: %w", position, err)
		}
		for _, event := range events {
			url, ok := strings.CutPrefix(event.Reason, keys.LeakReasonPrefix)
			if event.Action != models.KeyActionRevoked || event.Actor != keys.ActorLeakReport || !ok ||
				b.clock.Now().Sub(event.CreatedAt) > leakNoticeMaxAge {
				position = event.ID
				continue
			}
			sent, err := b.tellOfLeak(ctx, event.DiscordUserID, url)
			if err != nil {
				return told, errors.Join(fmt.Errorf("tell the owner of the key of leak event %d: %s", event.ID, describeDiscordError(err)), save())
			}
			if sent {
				told++
			}
			position = event.ID
			if err := save(); err != nil {
				return told, err
			}
		}
		if err := save(); err != nil {
			return told, err
		}
		if len(events) < auditBatchSize {
			return told, nil
		}
	}
}

// tellOfLeak tells a developer by direct message that a leaked-key report
// revoked their key, and where it was found. It reports whether the
// message went; a refusal that would last (direct messages closed, an
// unknown user) is logged and is no error, any other failure is returned
// to be tried again.
func (b *Bot) tellOfLeak(ctx context.Context, discordUserID, url string) (sent bool, err error) {
	err = b.sendDirectMessage(ctx, discordUserID, textLeakedKeyMessage(url, slashStyle()))
	switch {
	case err == nil:
		return true, nil
	case isDMClosed(err):
		b.log.InfoContext(ctx, "member does not accept direct messages; not told of the leaked key", "user", discordUserID)
		return false, nil
	case isLastingRefusal(err):
		b.logDiscordFailure(ctx, "tell a member their key was reported leaked", err)
		return false, nil
	}
	return false, err
}

// auditLoop posts pending key events to the log channel (when there is
// one) and tells owners of leaked keys every AuditPollInterval, and as
// soon as this process commits a transition, until ctx ends. The two read
// the outbox each from its own position and each retries on its own:
// after a failure a reader waits longer between attempts (doubling, at
// most maxRetryDelay, measured on the bot's clock) while the other goes
// on, so a log channel Discord keeps refusing does not hold back the
// owners' direct messages. Failures are logged as package outage does:
// when they start, a reminder a minute, when they end.
func (b *Bot) auditLoop(ctx context.Context) {
	ticker := time.NewTicker(b.cfg.AuditPollInterval)
	defer ticker.Stop()
	readers := []*outboxReader{
		{read: b.PostPendingEvents, log: outage.New(outage.Config{
			Logger:    b.log,
			Now:       b.clock.Now,
			Failing:   "cannot post key events to the log channel; will retry",
			Recovered: "posting key events again",
		})},
		{read: b.TellLeakedKeyOwners, log: outage.New(outage.Config{
			Logger:    b.log,
			Now:       b.clock.Now,
			Failing:   "cannot tell owners of leaked keys; will retry",
			Recovered: "telling owners of leaked keys again",
		})},
	}
	for {
		now := b.clock.Now()
		for _, r := range readers {
			r.readIfDue(ctx, now, b.cfg.AuditPollInterval)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-b.auditNudge:
		}
	}
}

// outboxReader is one of the audit loop's readers of the key-event
// outbox, with its own wait after failures.
type outboxReader struct {
	// read sends what is pending and returns how many it sent.
	read func(context.Context) (int, error)
	// log writes this reader's failures.
	log *outage.Log
	// failures counts the failures in a row; retryAt is when the reader
	// may try again.
	failures int
	retryAt  time.Time
}

// readIfDue reads the outbox unless, at now, the reader still waits after
// a failure. A failure makes it wait auditRetryDelay (longer for each in a
// row); a success ends the run of failures.
func (r *outboxReader) readIfDue(ctx context.Context, now time.Time, interval time.Duration) {
	if now.Before(r.retryAt) {
		return
	}
	_, err := r.read(ctx)
	switch {
	case ctx.Err() != nil:
	case err != nil:
		r.failures++
		wait := auditRetryDelay(interval, r.failures)
		r.retryAt = now.Add(wait)
		r.log.Failed(ctx, err, "retryIn", wait)
	default:
		r.failures = 0
		r.log.Succeeded(ctx)
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
