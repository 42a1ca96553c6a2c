package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/internal/backoff"
)

// HandleInteractionCreate answers slash commands and the regenerate
// confirmation button. Every answer is ephemeral: only the member who
// asked sees it.
func (b *Bot) HandleInteractionCreate(ctx context.Context, event *discordgo.InteractionCreate) {
	if event == nil || event.Interaction == nil {
		return
	}
	switch event.Type {
	case discordgo.InteractionApplicationCommand:
		b.answerCommand(ctx, event.Interaction)
	case discordgo.InteractionMessageComponent:
		if strings.HasPrefix(componentData(event.Interaction).CustomID, blacklistButtonID) {
			b.answerBlacklistButton(ctx, event.Interaction)
			return
		}
		b.answerButton(ctx, event.Interaction)
	case discordgo.InteractionModalSubmit:
		b.answerBlacklistReason(ctx, event.Interaction)
	}
}

// answerCommand acknowledges the command at once (Discord allows three
// seconds), works out the answer and edits it into the acknowledgement.
func (b *Bot) answerCommand(ctx context.Context, i *discordgo.Interaction) {
	if !b.acknowledge(ctx, i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral},
	}, "acknowledge a slash command") {
		b.metrics.command(slashCommandName(i), commandUnanswered)
		return
	}
	a := b.commandAnswer(ctx, i)
	delivered := b.editAnswer(ctx, i, a)
	if i.Member != nil && i.Member.User != nil {
		b.answered(i.Member.User.ID, a, delivered)
	}
	b.metrics.command(slashCommandName(i), b.outcomeOf(a, delivered))
}

// commandAnswer routes a slash command to its handler after the checks
// of place and permission.
func (b *Bot) commandAnswer(ctx context.Context, i *discordgo.Interaction) answer {
	if i.GuildID != b.cfg.GuildID || i.Member == nil || i.Member.User == nil {
		return answer{text: textOnlyInCommunityServer}
	}
	data := commandData(i)
	if len(data.Options) == 0 {
		return answer{text: textUnknownCommand}
	}
	sub := data.Options[0]
	switch data.Name {
	case commandKey:
		if i.ChannelID != b.cfg.KeyChannelID {
			return answer{text: textUseKeyChannel(b.cfg.KeyChannelID, slashStyle())}
		}
		who := requesterOf(i.Member.User, i.Member)
		switch sub.Name {
		case subGet:
			return b.getKey(ctx, who, slashStyle())
		case subRegenerate:
			return b.regenerateKey(ctx, who, slashStyle(), false)
		case subStats:
			return b.keyStats(ctx, who)
		case subRevoke:
			return b.revokeKey(ctx, who, slashStyle(), false)
		}
	case commandKeyAdmin:
		if !isModerator(i.Member) {
			return answer{text: textModeratorsOnly}
		}
		return b.keyAdmin(ctx, i.Member.User.ID, sub)
	case commandClan:
		if !isModerator(i.Member) {
			return answer{text: textModeratorsOnly}
		}
		if sub.Name == subWeekly {
			return b.clanWeekly(ctx, i.Member.User.ID, sub)
		}
	}
	return answer{text: textUnknownCommand}
}

// answerButton handles the "replace my key" and "revoke my key" buttons:
// only the member one was offered to may press it, within the
// confirmation window.
func (b *Bot) answerButton(ctx context.Context, i *discordgo.Interaction) {
	rest, ok := strings.CutPrefix(componentData(i).CustomID, confirmButtonPrefix)
	action, owner, _ := strings.Cut(rest, ":")
	ok = ok && (action == subRegenerate || action == subRevoke)
	if !ok || i.GuildID != b.cfg.GuildID || i.Member == nil || i.Member.User == nil || i.Member.User.ID != owner {
		outcome := commandRefused
		if !b.acknowledge(ctx, i, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseChannelMessageWithSource,
			Data: &discordgo.InteractionResponseData{Content: textNotYourButton, Flags: discordgo.MessageFlagsEphemeral},
		}, "refuse a button press") {
			outcome = commandUnanswered
		}
		b.metrics.command(commandKey+" "+action, outcome)
		return
	}
	if !b.acknowledge(ctx, i, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}, "acknowledge a button press") {
		b.metrics.command(commandKey+" "+action, commandUnanswered)
		return
	}
	who := requesterOf(i.Member.User, i.Member)
	if action == subRevoke {
		a := b.revokeKey(ctx, who, slashStyle(), true)
		b.metrics.command(commandKey+" "+subRevoke, b.outcomeOf(a, b.editAnswer(ctx, i, a)))
		return
	}
	a := b.regenerateKey(ctx, who, slashStyle(), true)
	b.metrics.command(commandKey+" "+subRegenerate, b.outcomeOf(a, b.editAnswer(ctx, i, a)))
}

// editAnswer replaces the acknowledged interaction's message with the
// answer, removing any earlier button and mentioning no one. It has its
// own deadline (see answerContext), so it goes out even when the work
// before it used up ctx, and it is sent again after a passing failure. It
// tells whether Discord took the answer.
func (b *Bot) editAnswer(ctx context.Context, i *discordgo.Interaction, a answer) bool {
	ctx, cancel := b.answerContext(ctx)
	defer cancel()
	components := []discordgo.MessageComponent{}
	if a.confirmFor != "" {
		label := textConfirmButton
		if a.confirmAction == subRevoke {
			label = textConfirmRevokeButton
		}
		components = append(components, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: label, Style: discordgo.DangerButton, CustomID: confirmButtonPrefix + a.confirmAction + ":" + a.confirmFor},
		}})
	}
	embeds := a.embeds
	if embeds == nil {
		embeds = []*discordgo.MessageEmbed{}
	}
	edit := &discordgo.WebhookEdit{
		Content:         &a.text,
		Components:      &components,
		Embeds:          &embeds,
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}},
	}
	// An edit may be sent twice: a passing failure (a 5xx, the network)
	// is tried again, so the member does not run a command again without
	// having seen its answer (a regenerate's question, say, which the
	// second run would confirm unseen).
	err := sendAgainAfterPassingFailures(ctx, func(int) error {
		_, err := b.session.InteractionResponseEdit(i, edit, discordgo.WithContext(ctx))
		return err
	})
	if err != nil {
		b.logDiscordFailure(ctx, "answer a slash command", err)
	}
	return err == nil
}

// acknowledgeWindow is how long Discord waits for an interaction's initial
// response: later, the member sees "The application did not respond" and
// Discord refuses the response.
const acknowledgeWindow = 3 * time.Second

// acknowledge sends an interaction's initial response within Discord's
// window: acknowledgeWindow from now, or ctx's deadline when sooner (a
// handler that works before its response narrows ctx first), so a 429
// asking a longer wait fails at once (see rateLimitTransport) instead of
// being waited out for a response Discord would refuse. A passing failure
// (a 5xx, the network) is sent again within the window: when Discord had
// taken the first though its answer was lost, it refuses the second as
// acknowledged already, which is success. A failure is logged as doing,
// and counted; acknowledge tells whether Discord took the response.
func (b *Bot) acknowledge(ctx context.Context, i *discordgo.Interaction, response *discordgo.InteractionResponse, doing string) bool {
	ctx, cancel := context.WithTimeout(ctx, acknowledgeWindow)
	defer cancel()
	err := sendAgainAfterPassingFailures(ctx, func(attempt int) error {
		err := b.respond(ctx, i, response)
		// On the first attempt the code means another process (a second
		// bot on the token) answered: this one must not go on.
		if attempt > 1 && hasDiscordCode(err, codeAlreadyAcknowledged) {
			return nil
		}
		return err
	})
	if err != nil {
		b.logDiscordFailure(ctx, doing, err)
		b.metrics.acknowledgementFailed()
	}
	return err == nil
}

// respond sends i's initial response as discordgo's InteractionRespond
// does (the bot sends no files), but under a rate-limit bucket of a
// limiter of its own: discordgo's session keeps a bucket per address for
// the life of the process, and every interaction has its own response
// address, so answering through the session's limiter kept one for each
// command answered. Discord's answer still sets this bucket's wait, and a
// 429 is waited out (or refused, see rateLimitTransport) as before; no
// other request shares the address.
func (b *Bot) respond(ctx context.Context, i *discordgo.Interaction, response *discordgo.InteractionResponse) error {
	body, err := json.Marshal(response)
	if err != nil {
		return fmt.Errorf("encode the response: %w", err)
	}
	endpoint := discordgo.EndpointInteractionResponse(i.ID, i.Token)
	bucket := discordgo.NewRatelimiter().LockBucket(endpoint)
	_, err = b.session.RequestWithLockedBucket(http.MethodPost, endpoint, "application/json", body, bucket, 0, discordgo.WithContext(ctx))
	return err
}

// sendAgainAfterPassingFailures calls send, with the attempt's number
// from 1, until it succeeds, Discord refuses for good (isLastingRefusal),
// ctx's deadline passes or answerAttempts were made, the house backoff
// from answerRetryDelay between; it returns the last error. send must be
// safe to repeat.
func sendAgainAfterPassingFailures(ctx context.Context, send func(attempt int) error) error {
	retry := backoff.Policy{First: answerRetryDelay, Max: 2 * answerRetryDelay}
	for attempt := 1; ; attempt++ {
		err := send(attempt)
		if err == nil || attempt == answerAttempts || isLastingRefusal(err) || errors.Is(err, context.DeadlineExceeded) ||
			!backoff.Wait(ctx, retry.Delay(attempt)) {
			return err
		}
	}
}

// A request Discord failed to take for a passing reason is sent up to
// answerAttempts times, the house backoff from answerRetryDelay between.
const (
	answerAttempts   = 3
	answerRetryDelay = 200 * time.Millisecond
)
