package store

import (
	"context"
	"time"
)

// RecordSecretCheck records check, the check value of this process's
// secret, as the deployment's when none is recorded yet, and returns the
// recorded one: check itself on first use, else the value recorded by the
// first process. Two processes racing on an empty database agree on one.
func (s *Store) RecordSecretCheck(ctx context.Context, check string, at time.Time) (string, error) {
	db := s.session(ctx)
	err := db.Exec(`INSERT INTO settings (id, secret_check, secret_recorded_at) VALUES (1, ?, ?)
		ON CONFLICT (id) DO UPDATE SET secret_check = excluded.secret_check, secret_recorded_at = excluded.secret_recorded_at
		WHERE settings.secret_check IS NULL`, check, at.UTC()).Error
	if err != nil {
		return "", s.translate(err)
	}
	var recorded string
	err = db.Raw(`SELECT secret_check FROM settings WHERE id = 1`).Scan(&recorded).Error
	return recorded, s.translate(err)
}

// SecretRecorded tells whether the database records the check value of a
// secret: whether it has been used with one.
func (s *Store) SecretRecorded(ctx context.Context) (bool, error) {
	var recorded int64
	err := s.session(ctx).Raw(`SELECT COUNT(*) FROM settings WHERE id = 1 AND secret_check IS NOT NULL`).Scan(&recorded).Error
	return recorded > 0, s.translate(err)
}
