package store

import (
	"context"
	"slices"
	"time"

	"gorm.io/gorm"

	"github.com/crownsdev/crowns/internal/backoff"
)

// FollowClanChanges is followClanChanges for tests, which drive its
// polls with a tick channel of their own.
func (s *Store) FollowClanChanges(ctx context.Context, tick <-chan time.Time) error {
	return s.followClanChanges(ctx, tick)
}

// Session is the store's own session, for tests of what its pooled
// connections are.
func (s *Store) Session(ctx context.Context) *gorm.DB { return s.session(ctx) }

// SetListenRetry sets the change listener's reconnection backoff, for
// tests of many reconnections; call it before ListenForClanChanges.
func (s *Store) SetListenRetry(p backoff.Policy) { s.listenRetry = p }

// SQLiteCacheSize is sqliteCacheSize, for the pool's test.
const SQLiteCacheSize = sqliteCacheSize

// WithoutSessionLimits is withoutSessionLimits, for the test of the
// limits it lifts and gives back.
func (s *Store) WithoutSessionLimits(ctx context.Context, fn func(conn *gorm.DB) error) error {
	return s.withoutSessionLimits(ctx, fn)
}

// PlayersByKeySQL is playersByKeySQL, for the test of its plan.
func PlayersByKeySQL(n int) string { return playersByKeySQL(n) }

// MigrateTo applies the migrations up to version and no later one, as
// the release whose schema stopped there did, for tests of upgrades
// from it.
func (s *Store) MigrateTo(ctx context.Context, version int) ([]string, error) {
	all := migrations()
	upTo := slices.IndexFunc(all, func(m migration) bool { return m.version > version })
	if upTo < 0 {
		upTo = len(all)
	}
	return s.migrate(ctx, all[:upTo])
}
