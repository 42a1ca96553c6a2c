package store

import (
	"context"
	"fmt"
	"time"
)

// ClaimUsageAlert records that a usage alert of keyID is posted at at,
// unless one was recorded after quietSince (the alert's cool-down): it
// reports whether the claim was made, so that of processes checking
// together, and across restarts, one posts each alert.
func (s *Store) ClaimUsageAlert(ctx context.Context, keyID int64, at, quietSince time.Time) (bool, error) {
	result := s.session(ctx).Exec(`INSERT INTO usage_alerts (key_id, alerted_at) VALUES (?, ?)
		ON CONFLICT (key_id) DO UPDATE SET alerted_at = excluded.alerted_at
		WHERE usage_alerts.alerted_at <= ?`, keyID, at.Unix(), quietSince.Unix())
	if result.Error != nil {
		return false, fmt.Errorf("claim the usage alert of key %d: %w", keyID, s.translate(result.Error))
	}
	return result.RowsAffected == 1, nil
}

// ReleaseUsageAlert withdraws the claim ClaimUsageAlert made at at, when
// the alert could not be posted: the next check tries again.
func (s *Store) ReleaseUsageAlert(ctx context.Context, keyID int64, at time.Time) error {
	err := s.session(ctx).Exec(`DELETE FROM usage_alerts WHERE key_id = ? AND alerted_at = ?`, keyID, at.Unix()).Error
	if err != nil {
		return fmt.Errorf("release the usage alert of key %d: %w", keyID, s.translate(err))
	}
	return nil
}
