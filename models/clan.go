package models

// ClanDetails is a clan as the game upstream describes it, with its member
// list: what clan tracking and snapshots read.
type ClanDetails struct {
	Tag              string
	Name             string
	Type             string
	Description      string
	BadgeID          int
	Score            int
	RequiredScore    int
	DonationsPerWeek int
	MemberCount      int
	Location         *Location
	Members          []ClanMember
}

// ClanMember is one member of a clan as the upstream lists it.
type ClanMember struct {
	Tag               string
	Name              string
	Role              string
	ExpLevel          int
	Trophies          int
	ClanRank          int
	Donations         int
	DonationsReceived int
	// ClanChestPoints is the upstream's clan-chest points; 0 when absent.
	ClanChestPoints int
}

// Location is a clan's location as the legacy API described it: part of
// the clan the upstream describes and of the legacy answers.
type Location struct {
	Name      string `json:"name"`
	IsCountry bool   `json:"isCountry"`
	Code      string `json:"code,omitempty"`
}
