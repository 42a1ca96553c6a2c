package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/internal/backoff"
)

// membersPerPage is the largest page of GET /guilds/{id}/members.
const membersPerPage = 1000

// ReconcileReport counts what a reconciliation saw and did.
type ReconcileReport struct {
	// MembersSeen is how many members of the community server were listed.
	MembersSeen int
	// DevelopersChecked is how many developers with an active key were
	// looked for among them.
	DevelopersChecked int
	// Disabled is how many of those were absent and had their keys
	// disabled.
	Disabled int
}

// errReconcileBusy: a reconciliation is already running.
var errReconcileBusy = errors.New("a reconciliation is already running")

// Reconcile disables the keys of developers with an active key who are no
// longer members of the community server (developers of hand-made ids,
// which no member has, are left alone: see handMadeUserID). It lists developers first, then
// pages through every member over REST; if any page fails it stops without
// disabling anyone (never on partial data). A developer whose key cannot
// be disabled is logged and the others are still handled; the error then
// joins those failures.
func (b *Bot) Reconcile(ctx context.Context) (ReconcileReport, error) {
	if !b.reconciling.TryLock() {
		return ReconcileReport{}, errReconcileBusy
	}
	defer b.reconciling.Unlock()
	var report ReconcileReport
	developers, err := b.deps.Keys.DevelopersWithActiveKeys(ctx)
	if err != nil {
		return report, fmt.Errorf("list developers with active keys: %w", err)
	}
	developers = slices.DeleteFunc(developers, handMadeUserID)
	report.DevelopersChecked = len(developers)
	if len(developers) == 0 {
		return report, nil
	}
	members, err := b.memberIDs(ctx)
	report.MembersSeen = len(members)
	if err != nil {
		return report, err
	}
	var failures []error
	for _, userID := range developers {
		if _, member := members[userID]; member {
			continue
		}
		if err := b.deps.Keys.Disable(ctx, userID, actorBot, reasonLeftServer); err != nil {
			b.log.ErrorContext(ctx, "cannot disable the key of a developer who left", "user", userID, "error", err)
			failures = append(failures, fmt.Errorf("disable keys of %s: %w", userID, err))
			continue
		}
		report.Disabled++
	}
	return report, errors.Join(failures...)
}

// minSnowflakeDigits is the fewest digits of a real Discord user id:
// Discord's first users already had 17.
const minSnowflakeDigits = 17

// handMadeUserID reports whether a developer's Discord user id is shorter
// than any real one: the local developer "0" of the first start, or
// someone outside Discord given a key with crowns keys issue. Such a
// developer is never a member of the community server, so a
// reconciliation leaves their key alone instead of disabling it on every
// connection.
func handMadeUserID(userID string) bool { return len(userID) < minSnowflakeDigits }

// memberIDs pages through the community server's members by ascending
// id and returns the set of their user ids.
func (b *Bot) memberIDs(ctx context.Context) (map[string]struct{}, error) {
	members := make(map[string]struct{})
	after := ""
	for page := 1; ; page++ {
		pageCtx, cancel := b.requestContext(ctx)
		listed, err := b.session.GuildMembers(b.cfg.GuildID, after, membersPerPage, discordgo.WithContext(pageCtx))
		cancel()
		if err != nil {
			return members, fmt.Errorf("list members, page %d: %s", page, describeDiscordError(err))
		}
		last := after
		for _, m := range listed {
			if m == nil || m.User == nil {
				continue
			}
			members[m.User.ID] = struct{}{}
			if snowflakeAfter(m.User.ID, last) {
				last = m.User.ID
			}
		}
		if len(listed) < membersPerPage {
			return members, nil
		}
		if last == after {
			return members, fmt.Errorf("list members, page %d: paging did not advance past %q", page, after)
		}
		after = last
	}
}

// snowflakeAfter reports whether Discord id a sorts after b ("" first).
func snowflakeAfter(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA != nil:
		return false
	case errB != nil:
		return true
	}
	return x > y
}

// reconcileAndLog reconciles and logs the counts or why it stopped. A
// reconciliation that failed, or found one running (which may have
// listed the members before a departure it should cover), is owed:
// reconcileLoop tries again.
func (b *Bot) reconcileAndLog(ctx context.Context) error {
	report, err := b.Reconcile(ctx)
	attrs := []any{"membersSeen", report.MembersSeen, "developersChecked", report.DevelopersChecked, "disabled", report.Disabled}
	switch {
	case ctx.Err() != nil:
		return err
	case errors.Is(err, errReconcileBusy):
		b.log.InfoContext(ctx, "reconciliation skipped: one is already running; trying again soon")
	case err != nil:
		b.log.ErrorContext(ctx, "reconciliation with the member list failed; trying again soon", append(attrs, "error", err)...)
	default:
		b.log.InfoContext(ctx, "reconciled developer keys with the member list", attrs...)
		return nil
	}
	b.oweReconciliation()
	return err
}

// oweReconciliation asks reconcileLoop for a reconciliation, without
// blocking: one already asked for covers this one too.
func (b *Bot) oweReconciliation() {
	select {
	case b.reconcileOwed <- struct{}{}:
	default:
	}
}

// reconcileLoop reconciles again each time one is owed (a departure whose
// key could not be disabled, a reconciliation that failed), after a wait
// that grows with the failures in a row (the house backoff from
// ReconnectDelay to five minutes), until one succeeds or ctx ends: a
// member who left while the database or Discord failed does not keep a
// working key until the next connection.
func (b *Bot) reconcileLoop(ctx context.Context) {
	retry := backoff.Policy{First: b.cfg.ReconnectDelay, Max: maxRetryDelay}
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.reconcileOwed:
		}
		failures++
		if !backoff.Wait(ctx, retry.Delay(failures)) {
			return
		}
		if b.reconcileAndLog(ctx) == nil {
			failures = 0
		}
	}
}
