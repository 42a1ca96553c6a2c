package scheduler

import (
	"context"
	"time"

	"github.com/crownsdev/crowns/models"
)

// PeriodicTasks runs periodic work on one replica per period.
type PeriodicTasks interface {
	// ClaimPeriodicTask tells whether this owner runs the task named name
	// now: true when no replica ran it within every.
	ClaimPeriodicTask(ctx context.Context, name, owner string, now time.Time, every time.Duration) (bool, error)
	// ReleasePeriodicTask gives back a claim made at claimedAt whose work
	// failed: the task is due again at once.
	ReleasePeriodicTask(ctx context.Context, name, owner string, claimedAt time.Time, every time.Duration) error
}

// SnapshotStore is what the Scheduler needs of the database: the
// snapshot job queue, the partitions of snapshots and their retention.
type SnapshotStore interface {
	PlanSnapshotJobs(ctx context.Context, kind models.SnapshotKind, slot, now time.Time) (int64, error)
	ClaimSnapshotJobs(ctx context.Context, owner string, now time.Time, lease time.Duration, limit int) ([]models.SnapshotJob, error)
	CompleteSnapshotJob(ctx context.Context, job models.SnapshotJob, clan models.ClanDetails, legible bool, now time.Time) (bool, error)
	ReleaseSnapshotJob(ctx context.Context, job models.SnapshotJob, now time.Time) error
	MissSnapshotJob(ctx context.Context, job models.SnapshotJob, now time.Time, reason string) error
	RetrySnapshotJob(ctx context.Context, job models.SnapshotJob, retryAt time.Time, reason string) error
	ExpireSnapshotJobs(ctx context.Context, now time.Time) ([]models.MissedJob, error)
	RecordUnplannedSlots(ctx context.Context, kind models.SnapshotKind, skippedBefore, accountedBefore, oldest, now time.Time) ([]models.UnplannedSlot, error)
	EnsureSnapshotPartitions(ctx context.Context, from, to time.Time) error
	PruneHistory(ctx context.Context, snapshotsBefore, jobsBefore time.Time) (models.PruneReport, error)
}

// TrackingStore is what the Tracker needs of the database.
type TrackingStore interface {
	Track(ctx context.Context, req models.TrackRequest) (models.TrackResult, error)
	TrackedClan(ctx context.Context, tag string) (models.TrackedClan, error)
}

// TournamentStore is what the TournamentRefresher needs of the database.
type TournamentStore interface {
	PeriodicTasks
	SaveDiscoveredTournaments(ctx context.Context, found []models.TournamentDetails, seenAt time.Time) error
	SaveLookedUpTournament(ctx context.Context, tournament models.TournamentDetails, seenAt time.Time) error
	ClaimTournamentRefreshes(ctx context.Context, claim models.TournamentRefreshClaim) ([]string, error)
	ReleaseTournamentRefresh(ctx context.Context, tag, owner string) error
	DeleteTournament(ctx context.Context, tag string) error
	PruneTournaments(ctx context.Context, cutoff time.Time) (int64, error)
}
