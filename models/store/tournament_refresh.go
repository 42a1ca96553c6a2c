package store

import (
	"context"
	"fmt"

	"github.com/crownsdev/crowns/models"
)

// ClaimTournamentRefreshes leases up to claim.Limit due tournaments to
// claim.Owner and returns their tags, the longest unseen first. A
// tournament is due, unless another replica holds a lease on it, when it
// was never looked up in full (only found in search results), or when it
// has not ended and either was not seen for claim.StaleAfter or was last
// seen before its status was due to move on (or, as a search result
// reported, moved on: see SaveDiscoveredTournaments), or in that very
// second: times are whole seconds, and a sighting in the second the
// status is due cannot tell whether it moved. On PostgreSQL
// concurrent claimants skip each other's locked rows (FOR UPDATE SKIP
// LOCKED); on SQLite the single writer makes the statement atomic.
func (s *Store) ClaimTournamentRefreshes(ctx context.Context, claim models.TournamentRefreshClaim) ([]string, error) {
	now := claim.Now.Unix()
	lock := ``
	if s.Dialect() == DialectPostgres {
		lock = ` FOR UPDATE SKIP LOCKED`
	}
	var tags []string
	err := s.session(ctx).Raw(`UPDATE tournaments SET claimed_by = ?, claimed_until = ?
		WHERE tag IN (
			SELECT tag FROM tournaments
			WHERE (claimed_until IS NULL OR claimed_until <= ?)
				AND (looked_up_at IS NULL OR (status <> ? AND (updated_at <= ?
					OR (expected_change_at <= ? AND updated_at <= expected_change_at))))
			ORDER BY updated_at, tag LIMIT ?`+lock+`)
		RETURNING tag`,
		claim.Owner, claim.Now.Add(claim.Lease).Unix(),
		now, models.TournamentEnded, claim.Now.Add(-claim.StaleAfter).Unix(), now, claim.Limit).Scan(&tags).Error
	if err != nil {
		return nil, fmt.Errorf("claim tournament refreshes: %w", s.translate(err))
	}
	return tags, nil
}

// ReleaseTournamentRefresh gives back owner's lease on the lookup of tag,
// cut before it ended (the replica is stopping), so that the next claim,
// by any replica, may take it at once rather than when the lease would
// have ended. A lease owner no longer holds is left as it is.
func (s *Store) ReleaseTournamentRefresh(ctx context.Context, tag, owner string) error {
	err := s.session(ctx).Exec(`UPDATE tournaments SET claimed_by = '', claimed_until = NULL WHERE tag = ? AND claimed_by = ?`,
		tag, owner).Error
	if err != nil {
		return fmt.Errorf("release a tournament refresh: %w", s.translate(err))
	}
	return nil
}
