package scheduler

import (
	"context"
	"time"

	"github.com/crownsdev/crowns/models"
)

// discoverIfDue runs the discovery searches when this replica claims the
// current period: each configured term is searched for once, and every
// tournament found is stored (those never looked up in full become due for
// a lookup). A failed search is noted in problems and waits for the next
// period; when the round's results cannot be saved, the claim is given
// back and the next tick tries the round again.
func (r *TournamentRefresher) discoverIfDue(ctx context.Context, report *TournamentTickReport, problems *refreshProblems) (err error) {
	now := r.cfg.Clock.Now()
	claimed, err := r.db.ClaimPeriodicTask(ctx, tournamentDiscoveryTask, r.cfg.Owner, now, r.cfg.DiscoveryInterval)
	if err != nil || !claimed {
		return err
	}
	defer func() { r.releaseIfFailed(ctx, err, tournamentDiscoveryTask, now, r.cfg.DiscoveryInterval) }()
	report.Searched = true
	var found []models.TournamentDetails
	for _, term := range r.cfg.SearchTerms {
		results, err := r.source.SearchTournaments(ctx, term, r.cfg.SearchLimit)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			problems.searchFailed(term, err)
			r.log.Debug("tournament search failed; searched again next period", "term", term, "error", err)
			continue
		}
		found = append(found, results...)
	}
	if err := r.db.SaveDiscoveredTournaments(ctx, found, r.cfg.Clock.Now()); err != nil {
		return err
	}
	report.Discovered = len(uniqueTags(found))
	r.log.Info("tournament search round done", "found", report.Discovered, "terms", len(r.cfg.SearchTerms))
	return nil
}

// uniqueTags is the set of tags of tournaments.
func uniqueTags(tournaments []models.TournamentDetails) map[string]bool {
	tags := make(map[string]bool, len(tournaments))
	for _, t := range tournaments {
		tags[t.Tag] = true
	}
	return tags
}

// pruneIfDue runs the retention pass when this replica claims the
// current period: tournaments that ended more than Retention ago, and any
// not seen for that long, are dropped; a pass that fails gives its claim
// back, so the next tick tries again.
func (r *TournamentRefresher) pruneIfDue(ctx context.Context, report *TournamentTickReport) (err error) {
	now := r.cfg.Clock.Now()
	claimed, err := r.db.ClaimPeriodicTask(ctx, tournamentRetentionTask, r.cfg.Owner, now, r.cfg.PruneEvery)
	if err != nil || !claimed {
		return err
	}
	defer func() { r.releaseIfFailed(ctx, err, tournamentRetentionTask, now, r.cfg.PruneEvery) }()
	report.Pruned, err = r.db.PruneTournaments(ctx, now.Add(-r.cfg.Retention))
	if report.Pruned > 0 {
		r.log.Info("ended tournaments pruned", "count", report.Pruned, "retention", r.cfg.Retention)
	}
	return err
}

// releaseTimeout bounds the release of a periodic task's claim, made even
// as the refresher stops.
const releaseTimeout = 5 * time.Second

// releaseIfFailed gives back the claim of task made at claimedAt when its
// work ended in err, so that the next tick of any replica runs it again
// rather than the next period. A release that fails is logged: the task
// then waits for its next period.
func (r *TournamentRefresher) releaseIfFailed(ctx context.Context, err error, task string, claimedAt time.Time, every time.Duration) {
	if err == nil {
		return
	}
	releaseCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if releaseErr := r.db.ReleasePeriodicTask(releaseCtx, task, r.cfg.Owner, claimedAt, every); releaseErr != nil {
		r.log.Warn("cannot give back a failed periodic task; it runs again next period", "task", task, "error", releaseErr, "taskError", err)
	}
}
