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

// SecretRecorded tells whether the database has been used with a secret:
// it records the check value of one, or it holds a key, sealed under one
// (a database first used by a release that recorded no check value holds
// keys without it).
func (s *Store) SecretRecorded(ctx context.Context) (bool, error) {
	var recorded int64
	err := s.session(ctx).Raw(`SELECT (SELECT COUNT(*) FROM settings WHERE id = 1 AND secret_check IS NOT NULL)
		+ (SELECT COUNT(*) FROM (SELECT 1 FROM api_keys LIMIT 1) AS stored)`).Scan(&recorded).Error
	return recorded > 0, s.translate(err)
}

// LatestSealedKey returns the lookup digest and the ciphertext of the
// newest stored key (found is false when there is none): the secret of
// the deployment must open it, whether or not a check value is recorded.
func (s *Store) LatestSealedKey(ctx context.Context) (digest, sealed []byte, found bool, err error) {
	var rows []struct {
		Digest []byte
		Sealed []byte
	}
	err = s.session(ctx).Raw(`SELECT digest, sealed FROM api_keys ORDER BY id DESC LIMIT 1`).Scan(&rows).Error
	if err != nil || len(rows) == 0 {
		return nil, nil, false, s.translate(err)
	}
	return rows[0].Digest, rows[0].Sealed, true, nil
}
