package store

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"
)

// retentionBatch bounds the rows one retention statement deletes, so no
// statement holds locks for long.
const retentionBatch = 1000

// PruneHistory removes the snapshots whose slot is before snapshotsBefore
// and the finished snapshot jobs whose slot is before jobsBefore. On
// PostgreSQL whole monthly partitions past the cutoff are dropped first,
// so the row deletes only touch the partition that straddles it; the row
// deletes go clan by clan along the primary key, in batches. Replicas may
// prune at the same time: every step is idempotent.
func (s *Store) PruneHistory(ctx context.Context, snapshotsBefore, jobsBefore time.Time) (models.PruneReport, error) {
	var report models.PruneReport
	if s.Dialect() == DialectPostgres {
		dropped, err := s.dropPartitionsBefore(ctx, snapshotsBefore)
		if err != nil {
			return report, err
		}
		report.DroppedPartitions = dropped
	}
	var clanIDs []int64
	if err := s.session(ctx).Raw(`SELECT id FROM tracked_clans ORDER BY id`).Scan(&clanIDs).Error; err != nil {
		return report, fmt.Errorf("list clans for retention: %w", s.Translate(err))
	}
	cutoff := snapshotsBefore.Unix()
	for _, id := range clanIDs {
		for _, kind := range []models.SnapshotKind{models.SnapshotFourHourly, models.SnapshotWeekly} {
			deleted, err := s.deleteInBatches(ctx, `DELETE FROM clan_snapshots WHERE clan_id = ? AND kind = ? AND slot IN (
				SELECT slot FROM clan_snapshots WHERE clan_id = ? AND kind = ? AND slot < ? ORDER BY slot LIMIT ?)`,
				id, kind, id, kind, cutoff, retentionBatch)
			report.DeletedSnapshots += deleted
			if err != nil {
				return report, fmt.Errorf("delete old snapshots of clan %d: %w", id, err)
			}
		}
	}
	deleted, err := s.deleteInBatches(ctx, `DELETE FROM snapshot_jobs WHERE (clan_id, kind, slot) IN (
		SELECT clan_id, kind, slot FROM snapshot_jobs WHERE slot < ? AND state IN (?, ?) LIMIT ?)`,
		jobsBefore.Unix(), models.JobDone, models.JobMissed, retentionBatch)
	report.DeletedJobs = deleted
	if err != nil {
		return report, fmt.Errorf("delete old snapshot jobs: %w", err)
	}
	return report, nil
}

// deleteInBatches repeats a DELETE whose last argument is the batch size
// until a batch deletes fewer rows, and returns the total.
func (s *Store) deleteInBatches(ctx context.Context, query string, args ...any) (int64, error) {
	var total int64
	for {
		res := s.session(ctx).Exec(query, args...)
		if res.Error != nil {
			return total, s.Translate(res.Error)
		}
		total += res.RowsAffected
		if res.RowsAffected < retentionBatch {
			return total, nil
		}
	}
}
