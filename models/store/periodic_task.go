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
// already took the current period. A next run more than a period past
// now+every was set by a clock that ran ahead (a claim at now sets
// now+every; a replica's clock behind by less than a period sees it less
// than a period beyond): left there, it would stop the task until the
// clock caught up, so the task is claimed and counting starts again from
// now. The claim is one atomic statement on both engines.
func (s *Store) ClaimPeriodicTask(ctx context.Context, name, owner string, now time.Time, every time.Duration) (bool, error) {
	res := s.session(ctx).Exec(`INSERT INTO periodic_tasks (name, claimed_by, next_run_at) VALUES (?, ?, ?)
		ON CONFLICT (name) DO UPDATE SET claimed_by = excluded.claimed_by, next_run_at = excluded.next_run_at
		WHERE periodic_tasks.next_run_at <= ? OR periodic_tasks.next_run_at > ?`,
		name, owner, now.Add(every).Unix(), now.Unix(), now.Add(2*every).Unix())
	if res.Error != nil {
		return false, fmt.Errorf("claim periodic task %s: %w", name, s.translate(res.Error))
	}
	return res.RowsAffected == 1, nil
}
