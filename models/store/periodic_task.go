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

// ReleasePeriodicTask gives back owner's claim of the task name made at
// claimedAt for every (ClaimPeriodicTask), when the work it claimed
// failed: the task is due again at once, so the next tick of any replica
// tries again instead of waiting for the next period. A claim taken over
// since is left alone.
func (s *Store) ReleasePeriodicTask(ctx context.Context, name, owner string, claimedAt time.Time, every time.Duration) error {
	err := s.session(ctx).Exec(`UPDATE periodic_tasks SET next_run_at = ? WHERE name = ? AND claimed_by = ? AND next_run_at = ?`,
		claimedAt.Unix(), name, owner, claimedAt.Add(every).Unix()).Error
	if err != nil {
		return fmt.Errorf("release periodic task %s: %w", name, s.translate(err))
	}
	return nil
}
