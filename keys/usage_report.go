package keys

import (
	"context"
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

// DeveloperUsage reports the usage of a developer's current key over the
// last days UTC days. A developer unknown or without a current key is
// models.ErrNotFound.
func (s *Service) DeveloperUsage(ctx context.Context, discordUserID string, days int) (models.KeyUsageReport, error) {
	info, err := s.Info(ctx, discordUserID)
	if err != nil {
		return models.KeyUsageReport{}, err
	}
	if info.CurrentKeyID == 0 {
		return models.KeyUsageReport{}, models.ErrNotFound
	}
	return s.KeyUsage(ctx, info.CurrentKeyID, days, s.clock.Now())
}

// TopKeys returns the limit keys with the most requests since since, most
// first, with their owners.
func (s *Service) TopKeys(ctx context.Context, since time.Time, limit int) ([]models.KeyUsageTotal, error) {
	return s.db.TopKeyUsage(ctx, since, limit)
}

// UsageWindows sums the usage of every key used since recentFrom: since
// then (recent), and from since to recentFrom (baseline); a row a key,
// ordered by key.
func (s *Service) UsageWindows(ctx context.Context, since, recentFrom time.Time) ([]models.KeyUsageWindows, error) {
	return s.db.KeyUsageWindows(ctx, since, recentFrom)
}
