package models

import "time"

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
