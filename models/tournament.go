package models

import "time"

// Tournament types as the upstream client spells them.
const (
	TournamentTypeOpen              = "open"
	TournamentTypePasswordProtected = "passwordProtected"
)

// Tournament statuses as the upstream client spells them; a tournament
// goes through them in this order.
const (
	TournamentInPreparation = "inPreparation"
	TournamentInProgress    = "inProgress"
	TournamentEnded         = "ended"
)

// TournamentDetails is a tournament as the game upstream describes it. Times
// are zero when the upstream gave none.
type TournamentDetails struct {
	Tag                 string
	Type                string // "open" or "passwordProtected"
	Status              string // "inPreparation", "inProgress" or "ended"
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
	preparation := time.Duration(t.PreparationDuration) * time.Second
	duration := time.Duration(t.Duration) * time.Second
	switch t.Status {
	case TournamentInPreparation:
		return t.CreatedTime.Add(preparation)
	case TournamentInProgress:
		if !t.StartedTime.IsZero() {
			return t.StartedTime.Add(duration)
		}
		return t.CreatedTime.Add(preparation + duration)
	}
	return time.Time{}
}
