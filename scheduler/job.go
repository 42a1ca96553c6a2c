package scheduler

import (
	"context"
	"errors"
	"strings"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

// outcome is how one job run ended.
type outcome int

const (
	outcomeStored outcome = iota
	outcomeAlreadyStored
	outcomeRetry
	outcomeReleased
	outcomeFailed
	// outcomeMissed: the clan is gone upstream, its slot recorded missed.
	outcomeMissed
	// outcomeLastTry: the fetch failed and its retry would come after the
	// window ends; the job waits for the window's end to be recorded
	// missed.
	outcomeLastTry
	outcomeCount
)

// maxReasonLength bounds the error text kept with a job.
const maxReasonLength = 300

// runJob fetches a claimed job's clan and stores its snapshot; on a failed
// fetch it schedules a retry (or records the slot missed when the clan is
// gone upstream); when the scheduler is stopping it gives the job back.
// The writes that finish a job run even when ctx has ended, for at most
// stopGrace more (see finishing).
func (s *Scheduler) runJob(ctx context.Context, job models.SnapshotJob, problems *tickProblems) outcome {
	var clan models.ClanDetails
	fetchErr := ctx.Err()
	if fetchErr == nil {
		// The tick sums the failed fetches up (see logTickProblems).
		fetchCtx, cancel := context.WithTimeout(upstream.CallerSumsUpFailures(ctx), s.cfg.UpstreamTimeout)
		clan, fetchErr = s.source.Clan(fetchCtx, job.Tag)
		cancel()
	}
	writeCtx, cancelWrite := finishing(ctx, writeTimeout, s.stopGrace)
	defer cancelWrite()
	now := s.cfg.Clock.Now()
	log := s.log.With("clan", job.Tag, "kind", job.Kind.String(), "slot", job.Slot, "attempt", job.Attempts)
	switch {
	case fetchErr == nil:
		stored, err := s.clans.CompleteSnapshotJob(writeCtx, job, clan, models.DescriptionHasAddress(clan.Description, s.cfg.TrackAddress), now)
		switch {
		case errors.Is(err, models.ErrLeaseLost):
			log.Warn("snapshot discarded: the job's lease expired and another replica took it over")
			return outcomeFailed
		case err != nil:
			log.Error("storing a snapshot failed; the job is retried when its lease expires", "error", err)
			return outcomeFailed
		case !stored:
			log.Info("snapshot slot already taken", "members", len(clan.Members))
			return outcomeAlreadyStored
		}
		log.Debug("snapshot stored", "members", len(clan.Members))
		return outcomeStored
	case ctx.Err() != nil:
		if err := s.clans.ReleaseSnapshotJob(writeCtx, job, now); err != nil && !errors.Is(err, models.ErrLeaseLost) {
			log.Error("giving back a job on shutdown failed; it is taken over when its lease expires", "error", err)
			return outcomeReleased
		}
		log.Info("job given back on shutdown")
		return outcomeReleased
	case errors.Is(fetchErr, models.ErrNotFound):
		if err := s.clans.MissSnapshotJob(writeCtx, job, now, "clan not found upstream"); err != nil {
			// The job stays running: it is tried again when its lease
			// expires, and counted missed then.
			log.Error("recording a slot missed (clan not found upstream) failed; the job is tried again when its lease expires", "error", err)
			return outcomeFailed
		}
		log.Warn("snapshot slot missed: the clan is not found upstream")
		return outcomeMissed
	}
	retryAt := now.Add(s.cfg.retryDelay(job.Attempts, fetchErr))
	reason := truncate(fetchErr.Error(), maxReasonLength)
	willMiss := !retryAt.Before(job.Deadline)
	if !willMiss {
		problems.fetchFailed(job.Tag, reason)
	}
	// A retry due after the window is never claimed: the job, pending
	// with its reason, is recorded missed when the window ends.
	if err := s.clans.RetrySnapshotJob(writeCtx, job, retryAt, reason); err != nil {
		log.Error("scheduling a retry failed; the job is retried when its lease expires", "error", err, "fetchError", fetchErr)
		return outcomeFailed
	}
	// One line a job at DEBUG: during an outage of the game API every
	// job fails, each several times; the tick sums them up (see
	// Scheduler.logTickProblems).
	log.Debug("snapshot fetch failed; retrying", "error", fetchErr, "retryAt", retryAt, "deadline", job.Deadline,
		"willMiss", willMiss)
	if willMiss {
		return outcomeLastTry
	}
	return outcomeRetry
}

// truncate cuts text to at most limit bytes of valid UTF-8.
func truncate(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	return strings.ToValidUTF8(text[:limit], "")
}
