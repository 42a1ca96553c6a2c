package models

import (
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
	// TournamentOpen: anyone may join (no password): of type open, which
	// an unknown type is not.
	TournamentOpen TournamentPredicate = "open"
	// TournamentFull: as many players as places.
	TournamentFull TournamentPredicate = "full"
	// TournamentInPrep: in preparation, which an unknown status is not.
	TournamentInPrep TournamentPredicate = "inprep"
	// TournamentJoinable: open, not full and not ended: in preparation or
	// in progress, so that an unknown status, which may be ended, is not
	// joinable.
	TournamentJoinable TournamentPredicate = "joinable"
)

// TournamentFilters lists the predicates the lists take as query
// filters, in the order the API checks them.
func TournamentFilters() []TournamentPredicate {
	return []TournamentPredicate{TournamentThousand, TournamentOpen, TournamentFull, TournamentInPrep, TournamentJoinable}
}

// TournamentRecord is a tournament as stored: its details without
// members, and when it was last seen upstream.
type TournamentRecord struct {
	TournamentDetails
	UpdatedAt time.Time
}

// WithDueTimes is the record as the lists show it: a tournament stored
// started, or ended, without the time (a search result gives none; only a
// full lookup does) takes the time it was due, which is when the game
// starts and ends tournaments: the start at the end of its preparation,
// the end its duration after its start. A due time later than the
// sighting that reported the status (UpdatedAt) is not taken: the time
// stays unknown until a lookup, as it does without a creation time. A
// stored time, a looked-up one, is kept as it is.
func (r TournamentRecord) WithDueTimes() TournamentRecord {
	if r.CreatedTime.IsZero() {
		return r
	}
	started := r.Status == TournamentInProgress || r.Status == TournamentEnded
	if started && r.StartedTime.IsZero() && !r.dueStart().After(r.UpdatedAt) {
		r.StartedTime = r.dueStart()
	}
	if r.Status == TournamentEnded && r.EndedTime.IsZero() && !r.dueEnd().After(r.UpdatedAt) {
		r.EndedTime = r.dueEnd()
	}
	return r
}
