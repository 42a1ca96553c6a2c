package models

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// MaxTournamentListLength is the most tournaments a list answers.
const MaxTournamentListLength = 100

// TournamentPredicate names a property a stored tournament has or lacks;
// the names are those of the lists.
type TournamentPredicate string

// The predicates of the tournament lists.
const (
	// TournamentKnown: looked up by a client of the API
	// (SaveRequestedTournament). The known list's rule; not a filter.
	TournamentKnown TournamentPredicate = "known"
	// TournamentThousand: 1000 places.
	TournamentThousand TournamentPredicate = "1k"
	// TournamentOpen: anyone may join (no password).
	TournamentOpen TournamentPredicate = "open"
	// TournamentFull: as many players as places.
	TournamentFull TournamentPredicate = "full"
	// TournamentInPrep: in preparation.
	TournamentInPrep TournamentPredicate = "inprep"
	// TournamentJoinable: open, not full and not ended.
	TournamentJoinable TournamentPredicate = "joinable"
)

// TournamentFilters lists the predicates the lists take as query
// filters, in the order the API checks them.
func TournamentFilters() []TournamentPredicate {
	return []TournamentPredicate{TournamentThousand, TournamentOpen, TournamentFull, TournamentInPrep, TournamentJoinable}
}

// condition is the predicate's SQL condition on a tournaments row; false
// for an unknown predicate.
func (p TournamentPredicate) condition() (string, bool) {
	switch p {
	case TournamentKnown:
		return `requested_at IS NOT NULL`, true
	case TournamentThousand:
		return `max_capacity = 1000`, true
	case TournamentOpen:
		return `type = '` + TournamentTypeOpen + `'`, true
	case TournamentFull:
		return `capacity >= max_capacity`, true
	case TournamentInPrep:
		return `status = '` + TournamentInPreparation + `'`, true
	case TournamentJoinable:
		return `(type = '` + TournamentTypeOpen + `' AND capacity < max_capacity AND status <> '` + TournamentEnded + `')`, true
	}
	return "", false
}

// TournamentRecord is a tournament as stored: its details without
// members, and when it was last seen upstream.
type TournamentRecord struct {
	TournamentDetails
	UpdatedAt time.Time
}

// tournamentListRow is a tournaments row as the lists read it.
type tournamentListRow struct {
	Tag                 string
	Type                string
	Status              string
	Name                string
	Description         string
	Capacity            int
	MaxCapacity         int
	PreparationDuration int
	Duration            int
	CreateTime          int64
	StartTime           *int64
	EndTime             *int64
	UpdatedAt           int64
}

// ListTournaments returns at most limit (at most MaxTournamentListLength)
// stored tournaments for which every predicate holds (all of them for
// none), most recently updated first.
func (t *TournamentStore) ListTournaments(ctx context.Context, predicates []TournamentPredicate, limit int) ([]TournamentRecord, error) {
	limit = min(max(limit, 0), MaxTournamentListLength)
	where := []string{"1 = 1"}
	for _, p := range predicates {
		sql, ok := p.condition()
		if !ok {
			return nil, fmt.Errorf("list tournaments: unknown predicate %q", p)
		}
		where = append(where, sql)
	}
	var rows []tournamentListRow
	err := t.store.DB(ctx).Raw(`SELECT tag, type, status, name, description, capacity, max_capacity,
			preparation_duration, duration, create_time, start_time, end_time, updated_at
		FROM tournaments WHERE `+strings.Join(where, " AND ")+`
		ORDER BY updated_at DESC, tag LIMIT ?`, limit).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list tournaments: %w", t.store.translate(err))
	}
	records := make([]TournamentRecord, len(rows))
	for i, row := range rows {
		records[i] = row.record()
	}
	return records, nil
}

func (r tournamentListRow) record() TournamentRecord {
	return TournamentRecord{
		TournamentDetails: TournamentDetails{
			Tag:                 r.Tag,
			Type:                r.Type,
			Status:              r.Status,
			Name:                r.Name,
			Description:         r.Description,
			Capacity:            r.Capacity,
			MaxCapacity:         r.MaxCapacity,
			PreparationDuration: r.PreparationDuration,
			Duration:            r.Duration,
			CreatedTime:         time.Unix(r.CreateTime, 0).UTC(),
			StartedTime:         timeOrZero(r.StartTime),
			EndedTime:           timeOrZero(r.EndTime),
		},
		UpdatedAt: time.Unix(r.UpdatedAt, 0).UTC(),
	}
}

// timeOrZero is the time of nullable Unix seconds; zero for NULL.
func timeOrZero(seconds *int64) time.Time {
	if seconds == nil {
		return time.Time{}
	}
	return time.Unix(*seconds, 0).UTC()
}
