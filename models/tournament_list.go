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

// TournamentRecord is a tournament as stored: its details without
// members, and when it was last seen upstream.
type TournamentRecord struct {
	TournamentDetails
	UpdatedAt time.Time
}
