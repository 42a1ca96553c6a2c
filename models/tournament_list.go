package models

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// MaxTournamentListLength is the most tournaments a list answers.
const MaxTournamentListLength = 100

// TournamentPredicate names a property a known tournament has or lacks;
// the names are those of the lists and their query filters.
type TournamentPredicate string

// The predicates of the tournament lists.
const (
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

// TournamentPredicates lists every predicate, in the order the API checks
// its filters.
func TournamentPredicates() []TournamentPredicate {
	return []TournamentPredicate{TournamentThousand, TournamentOpen, TournamentFull, TournamentInPrep, TournamentJoinable}
}

// condition is the predicate's SQL condition on a tournaments row; false
// for an unknown predicate.
func (p TournamentPredicate) condition() (string, bool) {
	switch p {
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

// TournamentCondition asks that a predicate hold (Holds) or not hold.
type TournamentCondition struct {
	Predicate TournamentPredicate
	Holds     bool
}

// TournamentRecord is a known tournament as stored: its details without
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
// known tournaments that meet every condition, most recently updated
// first. Contradicting conditions match nothing.
func (t *TournamentStore) ListTournaments(ctx context.Context, conditions []TournamentCondition, limit int) ([]TournamentRecord, error) {
	limit = min(max(limit, 0), MaxTournamentListLength)
	where := []string{"1 = 1"}
	for _, c := range conditions {
		sql, ok := c.Predicate.condition()
		if !ok {
			return nil, fmt.Errorf("list tournaments: unknown predicate %q", c.Predicate)
		}
		if !c.Holds {
			sql = "NOT " + sql
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
