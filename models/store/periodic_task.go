package store

import (
	"context"
	"fmt"
	"time"
)

// ClaimPeriodicTask lets one replica at a time run the periodic task name
// (a tournament search round, a retention pass): it reports true, and
// records owner and the next run at now+every, when the task has never run
// or its next run is due at now; false when another replica (or this one)
// already took the current period. The claim is one atomic statement on
// both engines.
func (s *Store) ClaimPeriodicTask(ctx context.Context, name, owner string, now time.Time, every time.Duration) (bool, error) {
	res := s.session(ctx).Exec(`INSERT INTO periodic_tasks (name, claimed_by, next_run_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET claimed_by = excluded.claimed_by, next_run_at = excluded.next_run_at
		WHERE periodic_tasks.next_run_at <= ?`,
		name, owner, now.Add(every).Unix(), now.Unix())
	if res.Error != nil {
		return false, fmt.Errorf("claim periodic task %s: %w", name, s.translate(res.Error))
	}
	return res.RowsAffected == 1, nil
}
