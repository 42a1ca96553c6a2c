package official

// Clan is a clan: a search result (no description, no member list) or the
// full answer of /clans/{tag}.
type Clan struct {
	Tag               string       `json:"tag"`
	Name              string       `json:"name"`
	Type              string       `json:"type"` // "open", "inviteOnly" or "closed"
	Description       string       `json:"description,omitempty"`
	BadgeID           int          `json:"badgeId"`
	ClanScore         int          `json:"clanScore"`
	ClanWarTrophies   int          `json:"clanWarTrophies"`
	Location          *Location    `json:"location,omitempty"`
	RequiredTrophies  int          `json:"requiredTrophies"`
	DonationsPerWeek  int          `json:"donationsPerWeek"`
	ClanChestStatus   string       `json:"clanChestStatus,omitempty"`
	ClanChestLevel    int          `json:"clanChestLevel"`
	ClanChestMaxLevel int          `json:"clanChestMaxLevel"`
	Members           int          `json:"members"`
	MemberList        []ClanMember `json:"memberList,omitempty"`
}

// ClanMember is one member of a clan.
type ClanMember struct {
	Tag               string `json:"tag"`
	Name              string `json:"name"`
	Role              string `json:"role"` // "leader", "coLeader", "elder" or "member"
	LastSeen          string `json:"lastSeen,omitempty"`
	ExpLevel          int    `json:"expLevel"`
	Trophies          int    `json:"trophies"`
	Arena             Arena  `json:"arena"`
	ClanRank          int    `json:"clanRank"`
	PreviousClanRank  int    `json:"previousClanRank"`
	Donations         int    `json:"donations"`
	DonationsReceived int    `json:"donationsReceived"`
	ClanChestPoints   *int   `json:"clanChestPoints,omitempty"`
}

// Location is a region or a country.
type Location struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	IsCountry   bool   `json:"isCountry"`
	CountryCode string `json:"countryCode,omitempty"`
}

// Arena is an arena as battles and members name it.
type Arena struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
}

// PlayerClan is the short form of a clan inside a player, battle or
// tournament member.
type PlayerClan struct {
	Tag     string `json:"tag"`
	Name    string `json:"name"`
	BadgeID int    `json:"badgeId"`
}
