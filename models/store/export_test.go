package store

import (
	"context"
	"time"
)

// FollowClanChanges is followClanChanges for tests, which drive its
// polls with a tick channel of their own.
func (c *Store) FollowClanChanges(ctx context.Context, tick <-chan time.Time) error {
	return c.followClanChanges(ctx, tick)
}
