package models

import "time"

// Tournament types as the upstream client spells them.
const (
	TournamentTypeOpen              = "open"
	TournamentTypePasswordProtected = "passwordProtected"
	// TournamentTypeUnknown is any type the game API does not name: its
	// own UNKNOWN, or a type it has added since. Such a tournament is not
	// open: nothing says it takes players without a password.
	TournamentTypeUnknown = "unknown"
)

// Tournament statuses as the upstream client spells them; a tournament
// goes through the first three in this order.
const (
	TournamentInPreparation = "inPreparation"
	TournamentInProgress    = "inProgress"
	TournamentEnded         = "ended"
	// TournamentStatusUnknown is any status the game API does not name:
	// its own UNKNOWN, or a status it has added since. Such a tournament
	// is neither known to be in preparation nor known not to have ended.
	TournamentStatusUnknown = "unknown"
)

// TournamentDetails is a tournament as the game upstream describes it. Times
// are zero when the upstream gave none.
type TournamentDetails struct {
	Tag                 string
	Type                string // "open", "passwordProtected" or "unknown"
	Status              string // "inPreparation", "inProgress", "ended" or "unknown"
	Name                string
	Description         string
	CreatorTag          string
	Capacity            int // current players
	MaxCapacity         int
	PreparationDuration int // seconds
	Duration            int // seconds
	CreatedTime         time.Time
	StartedTime         time.Time
	EndedTime           time.Time
	// EndedTimeRaw is the upstream's compact form, e.g. "20171227T034657.000Z".
	EndedTimeRaw string
	Members      []TournamentMember
}

// TournamentMember is a player of a tournament with their score.
type TournamentMember struct {
	Tag   string
	Name  string
	Score int
	Rank  int
}

// NextStatusChange is when the tournament's status is due to move on: the
// end of its preparation while in preparation, the end of its duration
// while in progress (counted from its start when known); zero once it has
// ended or when its status is unknown.
func (t TournamentDetails) NextStatusChange() time.Time {
	switch t.Status {
	case TournamentInPreparation:
		return t.dueStart()
	case TournamentInProgress:
		return t.dueEnd()
	}
	return time.Time{}
}

// dueStart is when the tournament is due to start: at the end of its
// preparation.
func (t TournamentDetails) dueStart() time.Time {
	return t.CreatedTime.Add(time.Duration(t.PreparationDuration) * time.Second)
}

// dueEnd is when the tournament is due to end: its duration after its
// start, or after its due start while its start is not known.
func (t TournamentDetails) dueEnd() time.Time {
	start := t.StartedTime
	if start.IsZero() {
		start = t.dueStart()
	}
	return start.Add(time.Duration(t.Duration) * time.Second)
}
