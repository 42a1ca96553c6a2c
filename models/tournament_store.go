package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// TournamentStore keeps the tournaments Crowns knows of: every tournament
// looked up through the API and every one the scheduler finds by search,
// with what the lists need, and the refresher's leases on them.
type TournamentStore struct {
	store *Store
}

// NewTournamentStore returns the tournament storage over store.
func NewTournamentStore(store *Store) *TournamentStore {
	return &TournamentStore{store: store}
}

// upsertTournament writes a tournament as seen at seenAt, replacing what
// was stored of it and releasing any refresher's lease. Start and end
// times once known are kept when the new sighting lacks them (a search
// result has none); lookedUp records a full lookup, which only such a
// lookup sets.
const upsertTournament = `INSERT INTO tournaments (tag, type, status, name, description, capacity, max_capacity,
		preparation_duration, duration, create_time, start_time, end_time, updated_at, looked_up_at,
		expected_change_at, claimed_by, claimed_until)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', NULL)
	ON CONFLICT (tag) DO UPDATE SET type = excluded.type, status = excluded.status, name = excluded.name,
		description = excluded.description, capacity = excluded.capacity, max_capacity = excluded.max_capacity,
		preparation_duration = excluded.preparation_duration, duration = excluded.duration,
		create_time = excluded.create_time,
		start_time = COALESCE(excluded.start_time, tournaments.start_time),
		end_time = COALESCE(excluded.end_time, tournaments.end_time),
		updated_at = excluded.updated_at,
		looked_up_at = COALESCE(excluded.looked_up_at, tournaments.looked_up_at),
		expected_change_at = excluded.expected_change_at,
		claimed_by = '', claimed_until = NULL`

// SaveLookedUpTournament stores a tournament just looked up in full (with
// its start and end times once it has them) at seenAt. Saving the same
// tournament twice, from two replicas say, is harmless.
func (t *TournamentStore) SaveLookedUpTournament(ctx context.Context, tournament TournamentDetails, seenAt time.Time) error {
	return t.save(ctx, []TournamentDetails{tournament}, seenAt, true)
}

// SaveDiscoveredTournaments stores tournaments found in search results at
// seenAt, in one transaction. A tournament listed twice is stored once.
// Those never looked up in full become due for a full lookup.
func (t *TournamentStore) SaveDiscoveredTournaments(ctx context.Context, found []TournamentDetails, seenAt time.Time) error {
	return t.save(ctx, found, seenAt, false)
}

func (t *TournamentStore) save(ctx context.Context, tournaments []TournamentDetails, seenAt time.Time, lookedUp bool) error {
	if len(tournaments) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(tournaments))
	err := t.store.DB(ctx).Transaction(func(tx *gorm.DB) error {
		for _, tournament := range tournaments {
			if seen[tournament.Tag] {
				continue
			}
			seen[tournament.Tag] = true
			if err := tx.Exec(upsertTournament, tournamentRow(tournament, seenAt, lookedUp)...).Error; err != nil {
				return fmt.Errorf("save tournament %s: %w", tournament.Tag, err)
			}
		}
		return nil
	})
	return t.store.translate(err)
}

// tournamentRow is the parameters of upsertTournament.
func tournamentRow(tournament TournamentDetails, seenAt time.Time, lookedUp bool) []any {
	var lookedUpAt *int64
	if lookedUp {
		lookedUpAt = unixOrNull(seenAt)
	}
	return []any{
		tournament.Tag, tournament.Type, tournament.Status, tournament.Name, tournament.Description,
		tournament.Capacity, tournament.MaxCapacity, tournament.PreparationDuration, tournament.Duration,
		tournament.CreatedTime.Unix(), unixOrNull(tournament.StartedTime), unixOrNull(tournament.EndedTime),
		seenAt.Unix(), lookedUpAt, unixOrNull(tournament.nextStatusChange()),
	}
}

// DeleteTournament forgets a tournament (the upstream no longer knows
// it). Deleting an unknown tag is not an error.
func (t *TournamentStore) DeleteTournament(ctx context.Context, tag string) error {
	err := t.store.DB(ctx).Exec(`DELETE FROM tournaments WHERE tag = ?`, tag).Error
	return t.store.translate(err)
}

// PruneTournaments deletes the tournaments that ended before cutoff, and
// those of any status not seen since cutoff, and returns how many it
// deleted.
func (t *TournamentStore) PruneTournaments(ctx context.Context, cutoff time.Time) (int64, error) {
	res := t.store.DB(ctx).Exec(`DELETE FROM tournaments WHERE COALESCE(end_time, updated_at) < ?`, cutoff.Unix())
	return res.RowsAffected, t.store.translate(res.Error)
}

// unixOrNull is t in Unix seconds, or NULL for the zero time.
func unixOrNull(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	seconds := t.Unix()
	return &seconds
}
