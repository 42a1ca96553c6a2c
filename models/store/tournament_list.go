package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/crownsdev/crowns/models"
)

// predicateCondition is the predicate's SQL condition on a tournaments row; false
// for an unknown predicate.
func predicateCondition(p models.TournamentPredicate) (string, bool) {
	switch p {
	case models.TournamentKnown:
		return `requested_at IS NOT NULL`, true
	case models.TournamentThousand:
		return `max_capacity = 1000`, true
	case models.TournamentOpen:
		return `type = '` + models.TournamentTypeOpen + `'`, true
	case models.TournamentFull:
		return `capacity >= max_capacity`, true
	case models.TournamentInPrep:
		return `status = '` + models.TournamentInPreparation + `'`, true
	case models.TournamentJoinable:
		return `(type = '` + models.TournamentTypeOpen + `' AND capacity < max_capacity AND status IN ('` +
			models.TournamentInPreparation + `', '` + models.TournamentInProgress + `'))`, true
	}
	return "", false
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
// none), most recently updated first, as the lists show them: a start or
// end time not stored (a search result gives none) is the one it was due
// (TournamentRecord.WithDueTimes). Only the stored times are ever written
// back: a full lookup replaces a due time, and a due time never replaces
// a looked-up one.
func (s *Store) ListTournaments(ctx context.Context, predicates []models.TournamentPredicate, limit int) ([]models.TournamentRecord, error) {
	limit = min(max(limit, 0), models.MaxTournamentListLength)
	where := []string{"1 = 1"}
	for _, p := range predicates {
		sql, ok := predicateCondition(p)
		if !ok {
			return nil, fmt.Errorf("list tournaments: unknown predicate %q", p)
		}
		where = append(where, sql)
	}
	var rows []tournamentListRow
	err := s.session(ctx).Raw(`SELECT tag, type, status, name, description, capacity, max_capacity,
			preparation_duration, duration, create_time, start_time, end_time, updated_at
		FROM tournaments WHERE `+strings.Join(where, " AND ")+`
		ORDER BY updated_at DESC, tag LIMIT ?`, limit).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("list tournaments: %w", s.translate(err))
	}
	records := make([]models.TournamentRecord, len(rows))
	for i, row := range rows {
		records[i] = row.record()
	}
	return records, nil
}

func (r tournamentListRow) record() models.TournamentRecord {
	return models.TournamentRecord{
		TournamentDetails: models.TournamentDetails{
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
	}.WithDueTimes()
}

// timeOrZero is the time of nullable Unix seconds; zero for NULL.
func timeOrZero(seconds *int64) time.Time {
	if seconds == nil {
		return time.Time{}
	}
	return time.Unix(*seconds, 0).UTC()
}
