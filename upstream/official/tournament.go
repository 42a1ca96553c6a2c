package official

// TournamentHeader is a tournament as /tournaments?name= lists it. The
// game API leaves Description out when the creator wrote none.
type TournamentHeader struct {
	Tag                 string   `json:"tag"`
	Type                string   `json:"type"`   // "open" or "passwordProtected"
	Status              string   `json:"status"` // "inPreparation", "inProgress" or "ended"
	CreatorTag          string   `json:"creatorTag"`
	Name                string   `json:"name"`
	Description         string   `json:"description,omitempty"`
	LevelCap            int      `json:"levelCap"`
	FirstPlaceCardPrize int      `json:"firstPlaceCardPrize"`
	Capacity            int      `json:"capacity"`
	MaxCapacity         int      `json:"maxCapacity"`
	PreparationDuration int      `json:"preparationDuration"`
	Duration            int      `json:"duration"`
	CreatedTime         string   `json:"createdTime"`
	GameMode            GameMode `json:"gameMode"`
}

// Tournament is the full answer of /tournaments/{tag}: the header, the
// start and end times once known, and the members.
type Tournament struct {
	TournamentHeader
	StartedTime string             `json:"startedTime,omitempty"`
	EndedTime   string             `json:"endedTime,omitempty"`
	MembersList []TournamentMember `json:"membersList"`
}

// TournamentMember is a player of a tournament.
type TournamentMember struct {
	Tag   string      `json:"tag"`
	Name  string      `json:"name"`
	Score int         `json:"score"`
	Rank  int         `json:"rank"`
	Clan  *PlayerClan `json:"clan,omitempty"`
}
