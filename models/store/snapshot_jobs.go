package store

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"

	"gorm.io/gorm"
)

// PlanSnapshotJobs creates the pending jobs of slot for every tracked clan
// of the schedule (weekly: only clans with weekly collection) that has
// none, and returns how many it created. Every replica may call it for
// the same slot: existing jobs are left alone. The window of the slot
// ends at slot + kind.Window().
func (s *Store) PlanSnapshotJobs(ctx context.Context, kind models.SnapshotKind, slot, now time.Time) (int64, error) {
	filter := ``
	if kind == models.SnapshotWeekly {
		filter = ` AND c.weekly`
	}
	res := s.session(ctx).Exec(`INSERT INTO snapshot_jobs (clan_id, kind, slot, state, attempts, due_at, deadline_at)
		SELECT c.id, ?, ?, ?, 0, ?, ? FROM tracked_clans c WHERE c.active`+filter+`
		ON CONFLICT (clan_id, kind, slot) DO NOTHING`,
		kind, slot.Unix(), models.JobPending, now.UnixMilli(), slot.Add(kind.Window()).UnixMilli())
	if res.Error != nil {
		return 0, fmt.Errorf("plan %s snapshot jobs: %w", kind, s.Translate(res.Error))
	}
	return res.RowsAffected, nil
}

// ExpireSnapshotJobs records as missed every job whose window has ended
// without a snapshot (pending, or running with an expired lease) and
// returns them, each with its clan's tag, in one statement: whatever
// fails, a job recorded missed is returned with what its log line says,
// and no list of clan ids (as many as the tracked clans) is sent back as
// parameters. A running job whose lease is still valid is left to its
// claimant, whose result will be refused once the job is missed.
func (s *Store) ExpireSnapshotJobs(ctx context.Context, now time.Time) ([]models.MissedJob, error) {
	ms := now.UnixMilli()
	var missed []models.MissedJob
	err := s.session(ctx).Raw(`UPDATE snapshot_jobs SET state = ?, lease_owner = '', finished_at = ?,
			last_error = CASE WHEN last_error = '' THEN 'window ended before a try' ELSE last_error END
		WHERE state IN (?, ?) AND deadline_at <= ? AND (state = ? OR due_at <= ?)
		RETURNING clan_id, (SELECT tag FROM tracked_clans WHERE id = clan_id) AS tag, kind, slot, attempts, last_error`,
		models.JobMissed, ms, models.JobPending, models.JobRunning, ms, models.JobPending, ms).Scan(&missed).Error
	if err != nil {
		return nil, fmt.Errorf("expire snapshot jobs: %w", s.Translate(err))
	}
	return missed, nil
}

// ClaimSnapshotJob is ClaimSnapshotJobs of one job; ok is false when
// nothing is due.
func (s *Store) ClaimSnapshotJob(ctx context.Context, owner string, now time.Time, lease time.Duration) (models.SnapshotJob, bool, error) {
	jobs, err := s.ClaimSnapshotJobs(ctx, owner, now, lease, 1)
	if err != nil || len(jobs) == 0 {
		return models.SnapshotJob{}, false, err
	}
	return jobs[0], true, nil
}

// ClaimSnapshotJobs takes up to limit due jobs (pending and due, or
// running with an expired lease) whose window is still open and whose
// clan is still tracked for its schedule, earliest due first, leases them
// to owner until now+lease in one statement, and returns them; none when
// nothing is due. On PostgreSQL concurrent claimants skip each other's
// locked rows (FOR UPDATE SKIP LOCKED); on SQLite the single writer makes
// the statement atomic.
func (s *Store) ClaimSnapshotJobs(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]models.SnapshotJob, error) {
	ms := now.UnixMilli()
	lock := ``
	if s.Dialect() == DialectPostgres {
		lock = ` FOR UPDATE OF j SKIP LOCKED`
	}
	var claimed []struct {
		ClanID     int64
		Tag        string
		Kind       models.SnapshotKind
		Slot       int64
		DeadlineAt int64
		Attempts   int
	}
	err := s.session(ctx).Raw(`UPDATE snapshot_jobs SET state = ?, lease_owner = ?, attempts = attempts + 1, due_at = ?
		WHERE (clan_id, kind, slot) IN (
			SELECT j.clan_id, j.kind, j.slot FROM snapshot_jobs j JOIN tracked_clans c ON c.id = j.clan_id
			WHERE j.state IN (?, ?) AND j.due_at <= ? AND j.deadline_at > ?
				AND c.active AND (j.kind = ? OR c.weekly)
			ORDER BY j.due_at, j.slot LIMIT ?`+lock+`)
		RETURNING clan_id, (SELECT tag FROM tracked_clans WHERE id = clan_id) AS tag, kind, slot, deadline_at, attempts`,
		models.JobRunning, owner, now.Add(lease).UnixMilli(), models.JobPending, models.JobRunning, ms, ms, models.SnapshotFourHourly, limit).Scan(&claimed).Error
	if err != nil {
		return nil, fmt.Errorf("claim snapshot jobs: %w", s.Translate(err))
	}
	jobs := make([]models.SnapshotJob, len(claimed))
	for i, j := range claimed {
		jobs[i] = models.SnapshotJob{
			ClanID:   j.ClanID,
			Tag:      j.Tag,
			Kind:     j.Kind,
			Slot:     time.Unix(j.Slot, 0).UTC(),
			Deadline: time.UnixMilli(j.DeadlineAt).UTC(),
			Attempts: j.Attempts,
			Owner:    owner,
		}
	}
	return jobs, nil
}

// fenced finishes a claimed job: set (with its arguments) is applied only
// while the job is still running under this exact claim; otherwise
// ErrLeaseLost.
func fenced(tx *gorm.DB, job models.SnapshotJob, set string, args ...any) error {
	args = append(args, job.ClanID, job.Kind, job.Slot.Unix(), models.JobRunning, job.Owner, job.Attempts)
	res := tx.Exec(`UPDATE snapshot_jobs SET `+set+`
		WHERE clan_id = ? AND kind = ? AND slot = ? AND state = ? AND lease_owner = ? AND attempts = ?`, args...)
	if res.Error != nil {
		return fmt.Errorf("finish snapshot job: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return models.ErrLeaseLost
	}
	return nil
}

// CompleteSnapshotJob stores the snapshot of a claimed job from the clan
// just fetched, records the check of its description and marks the job
// done, in one transaction. It reports whether a snapshot was stored
// (false when the slot already had one). ErrLeaseLost when the claim is no
// longer held: nothing is written then.
func (s *Store) CompleteSnapshotJob(ctx context.Context, job models.SnapshotJob, clan models.ClanDetails, legible bool, now time.Time) (bool, error) {
	row, err := s.encodeSnapshot(ctx, job.ClanID, job.Kind, models.SnapshotOf(clan, job.Slot))
	if err != nil {
		return false, err
	}
	var stored bool
	err = s.inTx(ctx, func(tx *gorm.DB) error {
		if err := fenced(tx, job, `state = ?, lease_owner = '', last_error = '', finished_at = ?`, models.JobDone, now.UnixMilli()); err != nil {
			return err
		}
		if stored, err = insertSnapshot(tx, row); err != nil {
			return err
		}
		if err := recordCheck(tx, job.ClanID, clan.Name, legible, now.UTC()); err != nil || !stored {
			return err
		}
		return s.notifyClanChange(tx, job.Tag)
	})
	if err == nil && stored {
		s.clanChanged(job.Tag)
	}
	return stored, err
}

// RetrySnapshotJob gives a claimed job back after a failed try, due again
// at retryAt, with the reason kept for the log of a later miss.
func (s *Store) RetrySnapshotJob(ctx context.Context, job models.SnapshotJob, retryAt time.Time, reason string) error {
	return s.inTx(ctx, func(tx *gorm.DB) error {
		return fenced(tx, job, `state = ?, lease_owner = '', due_at = ?, last_error = ?`, models.JobPending, retryAt.UnixMilli(), reason)
	})
}

// MissSnapshotJob records a claimed job as missed at once: a failure that
// retrying within the window cannot fix (the clan is gone upstream).
func (s *Store) MissSnapshotJob(ctx context.Context, job models.SnapshotJob, now time.Time, reason string) error {
	return s.inTx(ctx, func(tx *gorm.DB) error {
		return fenced(tx, job, `state = ?, lease_owner = '', finished_at = ?, last_error = ?`, models.JobMissed, now.UnixMilli(), reason)
	})
}

// ReleaseSnapshotJob gives a claimed job back untried (the scheduler is
// stopping), due at once for another replica.
func (s *Store) ReleaseSnapshotJob(ctx context.Context, job models.SnapshotJob, now time.Time) error {
	return s.inTx(ctx, func(tx *gorm.DB) error {
		return fenced(tx, job, `state = ?, lease_owner = '', due_at = ?`, models.JobPending, now.UnixMilli())
	})
}

// SnapshotJobStatus returns the stored job of (clan, kind, slot), or
// ErrNotFound.
func (s *Store) SnapshotJobStatus(ctx context.Context, clanID int64, kind models.SnapshotKind, slot time.Time) (models.SnapshotJobStatus, error) {
	var rows []models.SnapshotJobStatus
	err := s.session(ctx).Raw(`SELECT clan_id, kind, slot, state, attempts, due_at, deadline_at, lease_owner, last_error
		FROM snapshot_jobs WHERE clan_id = ? AND kind = ? AND slot = ?`, clanID, kind, slot.Unix()).Scan(&rows).Error
	if err != nil {
		return models.SnapshotJobStatus{}, fmt.Errorf("read snapshot job: %w", s.Translate(err))
	}
	if len(rows) == 0 {
		return models.SnapshotJobStatus{}, models.ErrNotFound
	}
	return rows[0], nil
}

// markSlotTaken records that the slot's snapshot was stored outside a job
// (by a track request): a pending job becomes done, a missing one is
// created done, a running one is left to its claimant (whose snapshot
// insert then changes nothing).
func markSlotTaken(tx *gorm.DB, clanID int64, kind models.SnapshotKind, slot, now time.Time) error {
	err := tx.Exec(`INSERT INTO snapshot_jobs (clan_id, kind, slot, state, attempts, due_at, deadline_at, finished_at)
		VALUES (?, ?, ?, ?, 0, ?, ?, ?)
		ON CONFLICT (clan_id, kind, slot) DO UPDATE SET state = excluded.state, finished_at = excluded.finished_at
		WHERE snapshot_jobs.state = ?`,
		clanID, kind, slot.Unix(), models.JobDone, now.UnixMilli(), slot.Add(kind.Window()).UnixMilli(), now.UnixMilli(), models.JobPending).Error
	if err != nil {
		return fmt.Errorf("record slot taken: %w", err)
	}
	return nil
}

// dropPendingJobs deletes the pending jobs of a clan (of one kind when
// kind is set): it was untracked, or its weekly collection switched off.
func dropPendingJobs(tx *gorm.DB, clanID int64, kind *models.SnapshotKind) error {
	query, args := `DELETE FROM snapshot_jobs WHERE clan_id = ? AND state = ?`, []any{clanID, models.JobPending}
	if kind != nil {
		query, args = query+` AND kind = ?`, append(args, *kind)
	}
	if err := tx.Exec(query, args...).Error; err != nil {
		return fmt.Errorf("drop pending snapshot jobs: %w", err)
	}
	return nil
}
