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
