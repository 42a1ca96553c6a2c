package keys

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"
)

// UsageDays is how many UTC days (today included) a usage report covers.
const UsageDays = 30

// daysSince is the start of the UTC day days-1 days before now's.
func daysSince(now time.Time, days int) time.Time {
	y, m, d := now.UTC().Date()
	return time.Date(y, m, d-(days-1), 0, 0, 0, 0, time.UTC)
}

// KeyUsage reports a key's stored usage over the last days UTC days
// (today included) at now: as of the latest flush of every process.
// An unknown key is models.ErrNotFound.
func (s *Service) KeyUsage(ctx context.Context, keyID int64, days int, now time.Time) (models.KeyUsageReport, error) {
	return s.db.KeyUsageReport(ctx, keyID, daysSince(now, days))
}

// DeveloperUsage reports the usage over the last days UTC days of a
// developer's current key or, without one, of their latest key (revoked
// or blacklisted): a blacklisted abuser's usage stays the evidence. A
// developer unknown is models.ErrNotFound, and so is one who never had a
// key (ErrNeverHadKey tells them apart).
func (s *Service) DeveloperUsage(ctx context.Context, discordUserID string, days int) (models.KeyUsageReport, error) {
	return s.developerKeyUsage(ctx, discordUserID, days, true)
}

// CurrentKeyUsage reports the usage over the last days UTC days of a
// developer's current key (active or disabled): what a member sees of
// their own key. Without a developer or a current key it is
// models.ErrNotFound.
func (s *Service) CurrentKeyUsage(ctx context.Context, discordUserID string, days int) (models.KeyUsageReport, error) {
	return s.developerKeyUsage(ctx, discordUserID, days, false)
}

// developerKeyUsage reports a developer's current key, or else, when
// latest is set, their latest key.
func (s *Service) developerKeyUsage(ctx context.Context, discordUserID string, days int, latest bool) (models.KeyUsageReport, error) {
	info, err := s.Info(ctx, discordUserID)
	if err != nil {
		return models.KeyUsageReport{}, err
	}
	keyID := info.CurrentKeyID
	switch {
	case keyID != 0:
	case !latest:
		return models.KeyUsageReport{}, models.ErrNotFound
	case info.LatestKeyID == 0:
		return models.KeyUsageReport{}, ErrNeverHadKey
	default:
		keyID = info.LatestKeyID
	}
	return s.KeyUsage(ctx, keyID, days, s.clock.Now())
}

// ErrNeverHadKey is DeveloperUsage's answer for a known developer who
// never had a key: a models.ErrNotFound.
var ErrNeverHadKey = fmt.Errorf("developer never had a key: %w", models.ErrNotFound)

// TopKeys returns the limit keys with the most requests since since, most
// first, with their owners.
func (s *Service) TopKeys(ctx context.Context, since time.Time, limit int) ([]models.KeyUsageTotal, error) {
	return s.db.TopKeyUsage(ctx, since, limit)
}

// UsageWindows sums the usage of every key still in use (active, its
// owner not blacklisted) used since recentFrom: since then (recent), and
// from since to recentFrom (baseline); a row a key, ordered by key.
func (s *Service) UsageWindows(ctx context.Context, since, recentFrom time.Time) ([]models.KeyUsageWindows, error) {
	return s.db.KeyUsageWindows(ctx, since, recentFrom)
}

// ClaimUsageAlert records that a usage alert of keyID is posted at at,
// unless one was within coolDown before it, and reports whether it did:
// the alert is the caller's to post (or to release). The record is in the
// database, so a restart, or another process checking, keeps the
// cool-down.
func (s *Service) ClaimUsageAlert(ctx context.Context, keyID int64, at time.Time, coolDown time.Duration) (bool, error) {
	return s.db.ClaimUsageAlert(ctx, keyID, at, at.Add(-coolDown))
}

// ReleaseUsageAlert withdraws a claim of ClaimUsageAlert whose alert
// could not be posted, so that the next check tries again.
func (s *Service) ReleaseUsageAlert(ctx context.Context, keyID int64, at time.Time) error {
	return s.db.ReleaseUsageAlert(ctx, keyID, at)
}
