package keys

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/crownsdev/crowns/models"
)

// ActorLeakReport is the actor of a revocation caused by a leaked-key
// report (POST /security/leaked-keys).
const ActorLeakReport = "leak-report"

// LeakReasonPrefix starts the reason of a revocation caused by a
// leaked-key report; the address where the key was found follows it.
const LeakReasonPrefix = "reported leaked at "

// maxLeakURLLength bounds the address kept in the reason.
const maxLeakURLLength = 400

// RevokeLeaked revokes the key raw because a secret scanner found it
// published at url: when raw is a well-formed key that is active or
// disabled, it becomes revoked (unknown at once, in this process; in
// others at their next Sync) and the event records actor ActorLeakReport
// and the reason LeakReasonPrefix + url, from which the bot tells its
// owner. It reports whether raw is a leaked key: one it revoked now, or
// one a leak report revoked before (so that a report sent again, after a
// failure part way through it, gets the same answers), which changes
// nothing. Anything else (not a key, unknown, revoked otherwise, replaced,
// blacklisted) is no leaked key and changes nothing either.
func (s *Service) RevokeLeaked(ctx context.Context, raw, url string) (leaked bool, err error) {
	if CheckFormat(raw) != nil {
		return false, nil
	}
	lookup := s.ring.digest(raw)
	standing, found, err := s.db.KeyStandingByDigest(ctx, lookup[:])
	if err != nil || !found || (!standing.State.Current() && standing.State != models.KeyRevoked) {
		return false, err
	}
	reason := LeakReasonPrefix + leakURL(url)
	err = s.transition(ctx, subject{discordUserID: standing.DiscordUserID}, func(c *change) error {
		leaked = false // a try again starts afresh
		key, err := c.tx.KeyByDigest(lookup[:])
		if err != nil || key == nil || key.DeveloperID != c.developer.ID {
			return err
		}
		if !key.State.Current() {
			leaked = key.State == models.KeyRevoked && strings.HasPrefix(key.StateReason, LeakReasonPrefix)
			return nil
		}
		if err := c.setKeyState(key, models.KeyRevoked, reason); err != nil {
			return err
		}
		leaked = true
		return c.record(models.KeyActionRevoked, key, ActorLeakReport, reason)
	})
	if err != nil {
		return false, err
	}
	return leaked, nil
}

// leakURL is the reported address as the reason keeps it: one line
// without control characters (a NUL, which PostgreSQL refuses in text,
// would fail the revocation), without the key if it holds it (the reason
// is stored, logged and posted: see Redact), at most maxLeakURLLength
// characters.
func leakURL(url string) string {
	url = Redact(strings.Join(strings.FieldsFunc(url, isLeakURLBreak), " "))
	if utf8.RuneCountInString(url) <= maxLeakURLLength {
		return url
	}
	return string([]rune(url)[:maxLeakURLLength]) + "…"
}

// isLeakURLBreak tells the characters leakURL turns into single spaces:
// white space and control characters.
func isLeakURLBreak(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r)
}
