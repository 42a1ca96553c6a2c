package store

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"gorm.io/gorm"
)

// The bounds every pooled PostgreSQL connection starts with, so that no
// request waits longer than the API's 5 s database deadline on a slow
// statement or a held lock: the server cancels the statement (SQLSTATE
// 57014, or 55P03 for a lock), which Translate reports as unavailable. A
// normal query takes milliseconds; the partition and retention statements
// work in small batches well within them.
const (
	statementTimeout = 4 * time.Second
	lockTimeout      = 3 * time.Second
	// connectTimeout bounds dialling and authenticating a new connection.
	connectTimeout = 4 * time.Second
	// sqliteBusyTimeout is how long a SQLite statement waits for another
	// writer's lock before answering "database is locked".
	sqliteBusyTimeout = 4 * time.Second
)

// sqliteCacheSize is SQLite's cache_size of each pooled connection, its
// page cache: -1000, that is 1,000 KiB, where SQLite's default is 2,000.
// Measured on 2026-12-01 (docs/performance.md): the largest resident
// memory of crowns serve under load went from 148.0–149.8 MB to 140.6 MB
// (136.6 MB at 500 KiB), and the cold paths did not move (a 7-day history
// read 0.53–0.77 ms against 0.68–0.72 ms, a tick of 2,000 clans 1.4–1.5 s
// against 1.6 s): the kernel's page cache serves what SQLite's no longer
// holds, and the API answers most reads from its own caches.
const sqliteCacheSize = -1000

// withSessionLimits adds the statement, lock and connect timeouts to a
// PostgreSQL URL as run-time parameters of every connection, unless the
// operator set them in the URL.
func withSessionLimits(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("parse database URL: %w", err)
	}
	q := u.Query()
	defaults := map[string]string{
		"statement_timeout": fmt.Sprint(statementTimeout.Milliseconds()),
		"lock_timeout":      fmt.Sprint(lockTimeout.Milliseconds()),
		"connect_timeout":   fmt.Sprint(int(connectTimeout.Seconds())),
	}
	for name, value := range defaults {
		if !q.Has(name) {
			q.Set(name, value)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// withoutSessionLimits runs fn on one pinned connection whose statement
// and lock timeouts are lifted, for the work that may legitimately take
// longer than a request (migrations, which also wait for each other's
// advisory lock); the connection gets its start-up limits back after (or,
// when ctx ended first, the driver closes it instead of pooling it). On
// SQLite it runs fn on the pool.
func (s *Store) withoutSessionLimits(ctx context.Context, fn func(conn *gorm.DB) error) error {
	if s.dialect != DialectPostgres {
		return fn(s.session(ctx))
	}
	return s.session(ctx).Connection(func(conn *gorm.DB) error {
		for _, lift := range []string{`SET statement_timeout = 0`, `SET lock_timeout = 0`} {
			if err := conn.Exec(lift).Error; err != nil {
				return fmt.Errorf("lift the session limits: %w", err)
			}
		}
		// One deferred function: `defer conn.Exec(x).Exec(y)` would run x
		// at once, when the defer statement is reached.
		defer func() {
			conn.Exec(`RESET statement_timeout`)
			conn.Exec(`RESET lock_timeout`)
		}()
		return fn(conn)
	})
}
