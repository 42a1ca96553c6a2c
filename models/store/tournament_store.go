package store

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"

	"gorm.io/gorm"
)

// upsertTournament writes a tournament as seen at seenAt, replacing what
// was stored of it and releasing any refresher's lease. Start and end
// times once known are kept when the new sighting lacks them (a search
// result has none); looked_up_at records a full lookup, which only such a
// lookup sets, and requested_at a lookup a client of the API asked for,
// which only such a lookup sets (a refresh or a search keeps it).
//
// A search result whose status differs from that of a tournament looked
// up in full is not written (the row affected is none): its status
// without the start or end time that goes with it would leave the row
// inconsistent, ended with no end time say. markStatusMoved makes such a
// row due for a lookup instead. Nor is a client's lookup older than the
// full lookup stored (its write tried again late): it would take the row
// back in time; markRequested still marks its request. Other sightings
// are written as they come (a refresher's lookup must land, and release
// its lease, whatever a search on a replica whose clock runs ahead wrote).
const upsertTournament = `INSERT INTO tournaments (tag, type, status, name, description, capacity, max_capacity,
		preparation_duration, duration, create_time, start_time, end_time, updated_at, looked_up_at,
		requested_at, expected_change_at, claimed_by, claimed_until)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', NULL)
	ON CONFLICT (tag) DO UPDATE SET type = excluded.type, status = excluded.status, name = excluded.name,
		description = excluded.description, capacity = excluded.capacity, max_capacity = excluded.max_capacity,
		preparation_duration = excluded.preparation_duration, duration = excluded.duration,
		create_time = excluded.create_time,
		start_time = COALESCE(excluded.start_time, tournaments.start_time),
		end_time = COALESCE(excluded.end_time, tournaments.end_time),
		updated_at = excluded.updated_at,
		looked_up_at = COALESCE(excluded.looked_up_at, tournaments.looked_up_at),
		requested_at = COALESCE(excluded.requested_at, tournaments.requested_at),
		expected_change_at = excluded.expected_change_at,
		claimed_by = '', claimed_until = NULL
	WHERE (excluded.looked_up_at IS NOT NULL OR tournaments.looked_up_at IS NULL
		OR excluded.status = tournaments.status)
		AND (excluded.requested_at IS NULL OR tournaments.looked_up_at IS NULL
			OR tournaments.looked_up_at <= excluded.looked_up_at)`

// markRequested marks a tournament requested (see upsertTournament) when a
// client's lookup was not written over a newer full lookup.
const markRequested = `UPDATE tournaments SET requested_at = ? WHERE tag = ? AND requested_at IS NULL`

// markStatusMoved makes a tournament looked up in full, whose status a
// search result at seenAt reported differently, due for a lookup at once:
// its status is due to move on at seenAt, no earlier than its last sighting. The
// row is otherwise left as the last lookup stored it, lease included. An
// ended tournament stays as it is (it is never looked up again).
const markStatusMoved = `UPDATE tournaments SET expected_change_at = ?
	WHERE tag = ? AND looked_up_at IS NOT NULL AND status <> ? AND status <> ?`

// sighting is how a tournament was seen: which marks saving it sets.
type sighting int

const (
	// sightingSearch: in search results, without start or end times.
	sightingSearch sighting = iota
	// sightingLookup: looked up in full by the scheduler's refresher.
	sightingLookup
	// sightingRequest: looked up in full for a client of the API.
	sightingRequest
)

// SaveRequestedTournament stores a tournament a client of the API just
// looked up in full, at seenAt, as SaveLookedUpTournament does, and marks
// it requested: it is in the known list from then on, whatever refreshes
// or searches store of it later.
func (s *Store) SaveRequestedTournament(ctx context.Context, tournament models.TournamentDetails, seenAt time.Time) error {
	return s.save(ctx, []models.TournamentDetails{tournament}, seenAt, sightingRequest)
}

// SaveLookedUpTournament stores a tournament just looked up in full (with
// its start and end times once it has them) at seenAt, as the refresher
// does: it neither sets nor clears the requested mark. Saving the same
// tournament twice, from two replicas say, is harmless.
func (s *Store) SaveLookedUpTournament(ctx context.Context, tournament models.TournamentDetails, seenAt time.Time) error {
	return s.save(ctx, []models.TournamentDetails{tournament}, seenAt, sightingLookup)
}

// SaveDiscoveredTournaments stores tournaments found in search results at
// seenAt, in one transaction. A tournament listed twice is stored once.
// Those never looked up in full become due for a full lookup. A search
// result never moves the status of a tournament looked up in full (it
// lacks the start and end times that go with the new status): when it
// reports another status, the stored tournament is left as it was and
// becomes due for a full lookup at once, which moves its status and times
// together.
func (s *Store) SaveDiscoveredTournaments(ctx context.Context, found []models.TournamentDetails, seenAt time.Time) error {
	return s.save(ctx, found, seenAt, sightingSearch)
}

func (s *Store) save(ctx context.Context, tournaments []models.TournamentDetails, seenAt time.Time, how sighting) error {
	if len(tournaments) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(tournaments))
	err := s.session(ctx).Transaction(func(tx *gorm.DB) error {
		for _, tournament := range tournaments {
			if seen[tournament.Tag] {
				continue
			}
			seen[tournament.Tag] = true
			res := tx.Exec(upsertTournament, tournamentRow(tournament, seenAt, how)...)
			if res.Error != nil {
				return fmt.Errorf("save tournament %s: %w", tournament.Tag, res.Error)
			}
			switch {
			case res.RowsAffected == 0 && how == sightingSearch:
				err := tx.Exec(markStatusMoved, seenAt.Unix(), tournament.Tag, tournament.Status, models.TournamentEnded).Error
				if err != nil {
					return fmt.Errorf("mark tournament %s due: %w", tournament.Tag, err)
				}
			case res.RowsAffected == 0 && how == sightingRequest:
				if err := tx.Exec(markRequested, seenAt.Unix(), tournament.Tag).Error; err != nil {
					return fmt.Errorf("mark tournament %s requested: %w", tournament.Tag, err)
				}
			}
		}
		return nil
	})
	return s.translate(err)
}

// tournamentRow is the parameters of upsertTournament.
func tournamentRow(tournament models.TournamentDetails, seenAt time.Time, how sighting) []any {
	var lookedUpAt, requestedAt *int64
	if how >= sightingLookup {
		lookedUpAt = unixOrNull(seenAt)
	}
	if how == sightingRequest {
		requestedAt = unixOrNull(seenAt)
	}
	return []any{
		tournament.Tag, tournament.Type, tournament.Status, tournament.Name, tournament.Description,
		tournament.Capacity, tournament.MaxCapacity, tournament.PreparationDuration, tournament.Duration,
		tournament.CreatedTime.Unix(), unixOrNull(tournament.StartedTime), unixOrNull(tournament.EndedTime),
		seenAt.Unix(), lookedUpAt, requestedAt, unixOrNull(tournament.NextStatusChange()),
	}
}

// DeleteTournament forgets a tournament (the upstream no longer knows
// it). Deleting an unknown tag is not an error.
func (s *Store) DeleteTournament(ctx context.Context, tag string) error {
	err := s.session(ctx).Exec(`DELETE FROM tournaments WHERE tag = ?`, tag).Error
	return s.translate(err)
}

// PruneTournaments deletes the tournaments that ended before cutoff, and
// those of any status not seen since cutoff, and returns how many it
// deleted.
func (s *Store) PruneTournaments(ctx context.Context, cutoff time.Time) (int64, error) {
	res := s.session(ctx).Exec(`DELETE FROM tournaments WHERE COALESCE(end_time, updated_at) < ?`, cutoff.Unix())
	return res.RowsAffected, s.translate(res.Error)
}

// unixOrNull is t in Unix seconds, or NULL for the zero time.
func unixOrNull(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	seconds := t.Unix()
	return &seconds
}
