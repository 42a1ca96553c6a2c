package models

import (
	"context"
	"fmt"
	"time"
)

// TournamentRefreshClaim asks for stored tournaments due for a full lookup.
type TournamentRefreshClaim struct {
	// Owner names the claiming replica.
	Owner string
	// Now is the claim's time.
	Now time.Time
	// StaleAfter is how long a tournament that has not ended may go
	// without a sighting before it is due.
	StaleAfter time.Duration
	// Lease is how long the claimed tournaments are the owner's; saving
	// one releases it earlier. After the lease another replica may claim
	// it again, so a failed lookup is retried after the lease.
	Lease time.Duration
	// Limit bounds how many tournaments one claim takes.
	Limit int
}

// ClaimTournamentRefreshes leases up to claim.Limit due tournaments to
// claim.Owner and returns their tags, the longest unseen first. A
// tournament is due, unless another replica holds a lease on it, when it
// was never looked up in full (only found in search results), or when it
// has not ended and either was not seen for claim.StaleAfter or was last
// seen before its status was due to move on (or, as a search result
// reported, moved on: see SaveDiscoveredTournaments). On PostgreSQL
// concurrent claimants skip each other's locked rows (FOR UPDATE SKIP
// LOCKED); on SQLite the single writer makes the statement atomic.
func (t *TournamentStore) ClaimTournamentRefreshes(ctx context.Context, claim TournamentRefreshClaim) ([]string, error) {
	now := claim.Now.Unix()
	lock := ``
	if t.store.Dialect() == DialectPostgres {
		lock = ` FOR UPDATE SKIP LOCKED`
	}
	var tags []string
	err := t.store.DB(ctx).Raw(`UPDATE tournaments SET claimed_by = ?, claimed_until = ?
		WHERE tag IN (
			SELECT tag FROM tournaments
			WHERE (claimed_until IS NULL OR claimed_until <= ?)
				AND (looked_up_at IS NULL OR (status <> ? AND (updated_at <= ?
					OR (expected_change_at <= ? AND updated_at < expected_change_at))))
			ORDER BY updated_at, tag LIMIT ?`+lock+`)
		RETURNING tag`,
		claim.Owner, claim.Now.Add(claim.Lease).Unix(),
		now, TournamentEnded, claim.Now.Add(-claim.StaleAfter).Unix(), now, claim.Limit).Scan(&tags).Error
	if err != nil {
		return nil, fmt.Errorf("claim tournament refreshes: %w", t.store.translate(err))
	}
	return tags, nil
}
