package bot

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/models"
)

// Usage alerts: what makes a key worth a moderator's look, and how often
// it is said.
const (
	// alertCheckInterval is how often stored usage is checked.
	alertCheckInterval = time.Minute
	// alertCoolDown is how long after an alert the same key's alerts stay
	// quiet.
	alertCoolDown = 6 * time.Hour
	// A key stays rate-limited when, in the current and the previous UTC
	// hour, at least alertLimitedMin of its requests were refused, they
	// were at least half of them, and those served were at least
	// alertHeldFor's worth at its rate (Config.RateLimitPerSecond): it was
	// held at its limit that long, not refused for one burst (a client
	// firing 800 requests in 3 s at 10 a second has 750 refused, but only
	// 50 served).
	alertLimitedMin = 600
	alertHeldFor    = 10 * time.Minute
	// A key's volume jumps when, in the current and the previous hour, it
	// made at least alertJumpMin requests and, per hour, alertJumpFactor
	// times its hourly average of the 7 days before (at least one an
	// hour); a key younger than that is averaged over the hours it
	// existed before, so that its steady use is not a jump.
	alertJumpMin      = 1000
	alertJumpFactor   = 10
	alertBaselineDays = 7
	// alertReleaseTimeout bounds the release of an alert's claim when it
	// could not be posted, which is made even as the bot stops.
	alertReleaseTimeout = 5 * time.Second
	// Component ids of the alert's button and of the reason form.
	blacklistButtonID = "crowns:blacklist:"
	blacklistModalID  = "crowns:blacklist-reason:"
	blacklistReasonID = "reason"
)

// usageAlert is one key's alert, with all its evidence: the key stays
// rate-limited, its volume jumped, or both.
type usageAlert struct {
	keyID         int64
	discordUserID string
	rateLimited   bool
	jumped        bool
	evidence      []string
}

// CheckUsageAlerts reads the stored usage of the keys used in the current
// or previous UTC hour and posts one alert to the log channel for each key
// that stays rate-limited or whose volume jumped (both said in one post),
// unless the key was alerted within the cool-down (on the bot's clock), by
// this process or another, before or after a restart: the database keeps
// when each key was alerted (see UsageReader.ClaimUsageAlert). A post
// that fails stops the check, its claim released so that the next check
// posts it; only one Discord refuses for its body, which would be refused
// again, is logged and passed over until its cool-down ends.
// Without a log channel or usage it does nothing.
func (b *Bot) CheckUsageAlerts(ctx context.Context) (posted int, err error) {
	if b.cfg.LogChannelID == "" || b.deps.Usage == nil {
		return 0, nil
	}
	now := b.clock.Now()
	recentFrom := now.Truncate(time.Hour).Add(-time.Hour)
	windows, err := b.deps.Usage.UsageWindows(ctx, recentFrom.Add(-alertBaselineDays*24*time.Hour), recentFrom)
	if err != nil {
		return 0, fmt.Errorf("read key usage: %w", err)
	}
	for _, alert := range usageAlertsOf(windows, recentFrom, b.cfg.RateLimitPerSecond) {
		claimed, err := b.deps.Usage.ClaimUsageAlert(ctx, alert.keyID, now, alertCoolDown)
		if err != nil {
			return posted, err
		}
		if !claimed {
			continue
		}
		err = b.postToLogChannel(ctx, &discordgo.MessageSend{
			Embeds: []*discordgo.MessageEmbed{alertEmbed(alert)},
			Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
				discordgo.Button{Label: textBlacklistButton, Style: discordgo.DangerButton, CustomID: blacklistButtonID + alert.discordUserID},
			}}},
		})
		if err != nil && isRefusedMessage(err) {
			// Posted again it would be refused again: its cool-down
			// holds, and the alerts after it go on.
			b.log.ErrorContext(ctx, "Discord refused a usage alert; passed over until its cool-down ends",
				"keyRecord", alert.keyID, "user", alert.discordUserID, "discord", describeDiscordError(err))
			continue
		}
		if err != nil {
			postErr := fmt.Errorf("post the usage alert of key record #%d (developer %s): %s",
				alert.keyID, alert.discordUserID, describeDiscordError(err))
			releaseCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), alertReleaseTimeout)
			releaseErr := b.deps.Usage.ReleaseUsageAlert(releaseCtx, alert.keyID, now)
			cancel()
			if releaseErr != nil {
				return posted, errors.Join(postErr, fmt.Errorf("its cool-down holds all the same: %w", releaseErr))
			}
			return posted, fmt.Errorf("%w; it is tried again at the next check", postErr)
		}
		posted++
	}
	return posted, nil
}

// usageAlertsOf finds the alerts in keys' usage: recent hours (from
// recentFrom on) against the baseline of the days before; rate is a key's
// rate limit, per second.
func usageAlertsOf(windows []models.KeyUsageWindows, recentFrom time.Time, rate float64) []usageAlert {
	var alerts []usageAlert
	since := recentFrom.Format("15:04 MST")
	for _, w := range windows {
		alert := usageAlert{keyID: w.KeyID, discordUserID: w.DiscordUserID}
		recent := w.Recent
		served := recent.Requests - recent.RateLimited
		heldFor := time.Duration(float64(served) / rate * float64(time.Second))
		if recent.RateLimited >= alertLimitedMin && 2*recent.RateLimited >= recent.Requests && heldFor >= alertHeldFor {
			alert.rateLimited = true
			alert.evidence = append(alert.evidence, fmt.Sprintf("%d of its %d requests since %s were refused with 429 (%s); the %d served are %d minutes at its limit of %g a second.",
				recent.RateLimited, recent.Requests, since, share(recent.RateLimited, recent.Requests), served, int(heldFor/time.Minute), rate))
		}
		baselineHours, before := float64(alertBaselineDays*24), fmt.Sprintf("over the %d days before", alertBaselineDays)
		switch existed := recentFrom.Sub(w.KeyCreatedAt); {
		case existed < time.Hour:
			baselineHours, before = 1, "before: the key is new"
		case existed < alertBaselineDays*24*time.Hour:
			baselineHours = existed.Hours()
			before = fmt.Sprintf("over the %s it existed before", counted(int64(math.Round(baselineHours)), "hour"))
		}
		hourly := float64(w.Baseline.Requests) / baselineHours
		if recent.Requests >= alertJumpMin && float64(recent.Requests)/2 >= alertJumpFactor*max(hourly, 1) {
			alert.jumped = true
			alert.evidence = append(alert.evidence, fmt.Sprintf("%d requests since %s, against %.1f an hour %s.",
				recent.Requests, since, hourly, before))
		}
		if alert.rateLimited || alert.jumped {
			alerts = append(alerts, alert)
		}
	}
	return alerts
}

// alertEmbed shows one alert.
func alertEmbed(a usageAlert) *discordgo.MessageEmbed {
	title := "Key keeps being rate-limited"
	switch {
	case a.rateLimited && a.jumped:
		title = "Key usage jumped, and it keeps being rate-limited"
	case a.jumped:
		title = "Key usage jumped"
	}
	return &discordgo.MessageEmbed{
		Title: title, Color: colourWarning,
		Description: strings.Join(a.evidence, "\n"),
		Fields: []*discordgo.MessageEmbedField{
			{Name: "Developer", Value: "<@" + a.discordUserID + ">", Inline: true},
			{Name: "Key record", Value: fmt.Sprintf("#%d", a.keyID), Inline: true},
		},
		Footer: &discordgo.MessageEmbedFooter{Text: "Blacklist asks for a reason; /keyadmin info shows the usage of the member's current key, by its record number."},
	}
}

// alertLoop checks usage alerts every alertCheckInterval until ctx ends,
// logging failures.
func (b *Bot) alertLoop(ctx context.Context) {
	if b.cfg.LogChannelID == "" || b.deps.Usage == nil {
		return
	}
	ticker := time.NewTicker(alertCheckInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			if _, err := b.CheckUsageAlerts(ctx); err != nil && ctx.Err() == nil {
				b.log.WarnContext(ctx, "cannot check usage alerts", "error", err)
			}
		}
	}
}

// blacklistButtonLookup bounds the look-up of the alerted member when a
// moderator presses Blacklist: Discord waits three seconds for the answer
// (a form cannot be deferred), so past it the form is shown unchecked.
const blacklistButtonLookup = 1500 * time.Millisecond

// answerBlacklistButton answers the Blacklist button of an alert: a
// moderator gets the form asking for a reason, or, when the member is
// blacklisted already, that blacklisting (nothing to fill in); anyone else
// a refusal.
func (b *Bot) answerBlacklistButton(ctx context.Context, i *discordgo.Interaction) {
	// Discord's window for the response runs during the look-up too.
	ctx, cancel := context.WithTimeout(ctx, acknowledgeWindow)
	defer cancel()
	target := strings.TrimPrefix(componentData(i).CustomID, blacklistButtonID)
	text := textModeratorsOnlyButton
	askReason := i.GuildID == b.cfg.GuildID && isModerator(i.Member) && target != ""
	if askReason {
		if first, ok := b.blacklistedAlready(ctx, target); ok {
			text, askReason = textAlreadyBlacklisted(target, first), false
		}
	}
	response := &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Content: text, Flags: discordgo.MessageFlagsEphemeral,
			AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}},
	}
	if askReason {
		response = &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseModal,
			Data: &discordgo.InteractionResponseData{
				CustomID: blacklistModalID + target, Title: blacklistFormTitle(target),
				Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
					discordgo.TextInput{CustomID: blacklistReasonID, Label: textBlacklistFormReason, Style: discordgo.TextInputShort,
						Required: true, MaxLength: maxReasonLength},
				}}},
			},
		}
	}
	b.acknowledge(ctx, i, response, "answer a blacklist button")
}

// blacklistedAlready reports whether target is blacklisted, with the
// words of that blacklisting; false when they are not, or when it cannot
// tell within blacklistButtonLookup (the form then asks, and its
// submission says so).
func (b *Bot) blacklistedAlready(ctx context.Context, target string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, blacklistButtonLookup)
	defer cancel()
	info, err := b.deps.Keys.Info(ctx, target)
	if err != nil {
		if !errors.Is(err, models.ErrNotFound) {
			b.log.WarnContext(ctx, "cannot read the developer of a blacklist button", "user", target, "error", err)
		}
		return "", false
	}
	if info.State != models.DeveloperBlacklisted {
		return "", false
	}
	return blacklistingWords(info), true
}

// answerBlacklistReason blacklists the developer of a submitted reason
// form, through the same path as /keyadmin blacklist; moderators only.
func (b *Bot) answerBlacklistReason(ctx context.Context, i *discordgo.Interaction) {
	if !b.acknowledge(ctx, i, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral},
	}, "acknowledge a blacklist form") {
		return
	}
	b.editAnswer(ctx, i, b.blacklistFromForm(ctx, i))
}

func (b *Bot) blacklistFromForm(ctx context.Context, i *discordgo.Interaction) answer {
	data := formData(i)
	target, ok := strings.CutPrefix(data.CustomID, blacklistModalID)
	if !ok || target == "" {
		return answer{text: textUnknownCommand}
	}
	if i.GuildID != b.cfg.GuildID || !isModerator(i.Member) || i.Member.User == nil {
		return answer{text: textModeratorsOnlyButton}
	}
	return b.blacklist(ctx, target, strings.TrimSpace(formValue(data.Components, blacklistReasonID)), actorFor(i.Member.User.ID))
}

// formValue finds a text input's value among a form's rows.
func formValue(rows []discordgo.MessageComponent, id string) string {
	for _, row := range rows {
		actions, ok := row.(*discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, c := range actions.Components {
			if input, ok := c.(*discordgo.TextInput); ok && input.CustomID == id {
				return input.Value
			}
		}
	}
	return ""
}

// Texts of the alerts' button and form.
const (
	textBlacklistButton     = "Blacklist"
	textBlacklistFormTitle  = "Blacklist developer "
	textBlacklistFormReason = "Reason (posted in the log channel)"
)

// maxFormTitle is the most characters Discord takes in a form's title.
const maxFormTitle = 45

// blacklistFormTitle names the developer the form blacklists (their
// Discord id, as the alert's mention shows it), so that a moderator with
// several alerts open sees whom they act on; an id too long for Discord's
// title is cut.
func blacklistFormTitle(target string) string {
	title := []rune(textBlacklistFormTitle + target)
	return string(title[:min(len(title), maxFormTitle)])
}
