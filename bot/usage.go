package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// UsageReader is what the bot reads of key usage, and where it keeps the
// cool-down of its usage alerts; *keys.Service implements it. Counts are
// as of each API process's latest flush.
type UsageReader interface {
	// DeveloperUsage reports a developer's current key (or else latest
	// key, for moderators' evidence) over the last days UTC days;
	// models.ErrNotFound without a developer or any key.
	DeveloperUsage(ctx context.Context, discordUserID string, days int) (models.KeyUsageReport, error)
	// CurrentKeyUsage reports a developer's current key only (what the
	// member sees of their own key); models.ErrNotFound without one.
	CurrentKeyUsage(ctx context.Context, discordUserID string, days int) (models.KeyUsageReport, error)
	// TopKeys lists the limit keys with the most requests since since.
	TopKeys(ctx context.Context, since time.Time, limit int) ([]models.KeyUsageTotal, error)
	// UsageWindows sums the usage of each key used since recentFrom: since
	// then, and from since to recentFrom; a row a key, by key.
	UsageWindows(ctx context.Context, since, recentFrom time.Time) ([]models.KeyUsageWindows, error)
	// ClaimUsageAlert records an alert of keyID posted at at, unless one
	// was within coolDown before, and reports whether it did: the alert
	// is then the caller's to post, or to release with ReleaseUsageAlert
	// when it cannot. Kept in the database: a restart keeps it.
	ClaimUsageAlert(ctx context.Context, keyID int64, at time.Time, coolDown time.Duration) (bool, error)
	ReleaseUsageAlert(ctx context.Context, keyID int64, at time.Time) error
}

// Usage commands' names, periods and sizes.
const (
	subStats       = "stats"
	subTop         = "top"
	optionPeriod   = "period"
	periodDay      = "day"
	periodWeek     = "week"
	memberDays     = 7
	topKeysListed  = 10
	topRoutesShown = 5
)

// keyStats answers /key stats: the member's own usage over the last 7 days.
func (b *Bot) keyStats(ctx context.Context, who requester) answer {
	if b.deps.Usage == nil {
		return answer{text: textUsageUnavailable}
	}
	now := b.clock.Now()
	if wait := b.coolDowns.take(statsRequests, who.userID, now); wait > 0 {
		return answer{text: textCoolDown(wait)}
	}
	report, err := b.deps.Usage.CurrentKeyUsage(ctx, who.userID, memberDays)
	if errors.Is(err, models.ErrNotFound) {
		b.coolDowns.giveBack(statsRequests, who.userID, now)
		return b.noKeyToReport(ctx, who)
	}
	if err != nil {
		return b.moderationRefusal(ctx, subStats, who.userID, err)
	}
	return answer{text: textMemberStats(report, now)}
}

// noKeyToReport answers /key stats from a member without a key in use:
// they never had one, theirs was revoked, or they are blacklisted.
func (b *Bot) noKeyToReport(ctx context.Context, who requester) answer {
	info, err := b.deps.Keys.Info(ctx, who.userID)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return answer{text: textNoKeyYet(slashStyle())}
	case err != nil:
		return b.keyRefusal(ctx, "look up a developer", who, err, slashStyle())
	case info.State == models.DeveloperBlacklisted:
		return answer{text: textBlacklistedDeveloper}
	}
	return answer{text: textNoKeyInUse(info, slashStyle())}
}

// usageField is the usage part of /keyadmin info: 30 days' totals and
// the top routes of the developer's current key (or else latest), named
// by its record number, as alerts and /keyadmin top name keys: after a
// regenerate, the key an alert named is not the one shown.
func (b *Bot) usageField(ctx context.Context, info keys.DeveloperInfo) *discordgo.MessageEmbedField {
	if b.deps.Usage == nil {
		return nil
	}
	report, err := b.deps.Usage.DeveloperUsage(ctx, info.DiscordUserID, keys.UsageDays)
	if err != nil {
		if !errors.Is(err, models.ErrNotFound) {
			b.log.WarnContext(ctx, "cannot read key usage", "user", info.DiscordUserID, "error", err)
		}
		return nil
	}
	name := fmt.Sprintf("Usage of key record #%d, last 30 days", report.KeyID)
	if report.KeyID != info.CurrentKeyID {
		name = fmt.Sprintf("Usage of key record #%d (no longer in use), last 30 days", report.KeyID)
	}
	return &discordgo.MessageEmbedField{Name: name, Value: textUsageSummary(report)}
}

// topKeys answers /keyadmin top [day|week]: the heaviest keys with their
// rate-limited share.
func (b *Bot) topKeys(ctx context.Context, sub *discordgo.ApplicationCommandInteractionDataOption) answer {
	if b.deps.Usage == nil {
		return answer{text: textUsageUnavailable}
	}
	period := optionValue(sub, optionPeriod)
	span := 24 * time.Hour
	if period == periodWeek {
		span = 7 * 24 * time.Hour
	} else {
		period = periodDay
	}
	top, err := b.deps.Usage.TopKeys(ctx, b.clock.Now().Add(-span), topKeysListed)
	if err != nil {
		return b.moderationRefusal(ctx, subTop, "", err)
	}
	return answer{text: textTopKeys(period, top)}
}

// textMemberStats is a compact table of a key's last days, in a code
// block.
func textMemberStats(r models.KeyUsageReport, now time.Time) string {
	byDay := make(map[string]models.KeyUsageCount, len(r.Days))
	for _, d := range r.Days {
		byDay[d.Day.Format(time.DateOnly)] = d.KeyUsageCount
	}
	var t strings.Builder
	fmt.Fprintf(&t, "Your key's usage, last %d UTC days (counted every few seconds):\n```\n", memberDays)
	fmt.Fprintf(&t, "%-10s %9s %8s %7s\n", "day", "requests", "limited", "errors")
	for i := memberDays - 1; i >= 0; i-- {
		day := now.UTC().AddDate(0, 0, -i).Format(time.DateOnly)
		c := byDay[day]
		fmt.Fprintf(&t, "%-10s %9d %8d %7d\n", day, c.Requests, c.RateLimited, c.ClientErrors+c.ServerErrors)
	}
	t.WriteString("```\n")
	if routes := topRoutes(r); routes != "" {
		t.WriteString("Most used: " + routes)
	}
	return t.String()
}

// textUsageSummary words a report's totals and top routes on a few lines.
func textUsageSummary(r models.KeyUsageReport) string {
	total := r.Total()
	text := fmt.Sprintf("%s, %d rate-limited (%s), %s, %s",
		counted(total.Requests, "request"), total.RateLimited, share(total.RateLimited, total.Requests),
		counted(total.ClientErrors, "client error"), counted(total.ServerErrors, "server error"))
	if routes := topRoutes(r); routes != "" {
		text += "\nTop routes: " + routes
	}
	return text
}

// topRoutes lists the most used routes with their counts.
func topRoutes(r models.KeyUsageReport) string {
	var parts []string
	for _, route := range r.RoutesByUse() {
		if len(parts) == topRoutesShown {
			break
		}
		parts = append(parts, fmt.Sprintf("`%s` %d", route, r.Routes[route]))
	}
	return strings.Join(parts, ", ")
}

// textTopKeys lists the heaviest keys of a period.
func textTopKeys(period string, top []models.KeyUsageTotal) string {
	if len(top) == 0 {
		return fmt.Sprintf("No key was used in the last %s.", period)
	}
	var t strings.Builder
	fmt.Fprintf(&t, "Heaviest keys of the last %s:\n", period)
	for i, k := range top {
		fmt.Fprintf(&t, "%d. <@%s> (key record #%d): %s, %s rate-limited\n", i+1, k.DiscordUserID, k.KeyID, counted(k.Requests, "request"), share(k.RateLimited, k.Requests))
	}
	return t.String()
}

// share words part of whole as a whole percentage, never rounded to 0%
// or 100% unless it is: a key refused 1 request in 1,000 shows "<1%", not
// "0%", and one refused all but 1 in 1,000 shows ">99%".
func share(part, whole int64) string {
	percent := 0.0
	if whole > 0 {
		percent = 100 * float64(part) / float64(whole)
	}
	switch {
	case part > 0 && percent < 1:
		return "<1%"
	case part < whole && percent > 99:
		return ">99%"
	}
	return fmt.Sprintf("%.0f%%", percent)
}

// counted is n things in words: "1 request", "2 requests".
func counted(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// textUsageUnavailable answers usage commands where usage is not read.
const textUsageUnavailable = "Usage is not available here."
