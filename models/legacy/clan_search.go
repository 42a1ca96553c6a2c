package legacy

import "github.com/crownsdev/crowns/models"

// ClanSearchQuery is a validated clan search, in the terms of the public
// API. Zero values mean "no filter".
type ClanSearchQuery struct {
	Name       string
	MinScore   int // "score" in the public API; -1 means unset
	MinMembers int
	MaxMembers int
	LocationID int
	Limit      int
	After      string
	Before     string
}

// ClanSearchPage is one page of clan search results with the upstream's
// paging cursors (empty when there is no further page that way).
type ClanSearchPage struct {
	Items  []ClanSearchResult
	After  string
	Before string
}

// ClanSearchResult is one clan in the legacy search shape.
type ClanSearchResult struct {
	Tag           string           `json:"tag"`
	Name          string           `json:"name"`
	Type          string           `json:"type"`
	Score         int              `json:"score"`
	MemberCount   int              `json:"memberCount"`
	RequiredScore int              `json:"requiredScore"`
	Donations     int              `json:"donations"`
	Badge         Badge            `json:"badge"`
	Location      *models.Location `json:"location"`
}

// Badge is a clan badge as the legacy API described it.
type Badge struct {
	Name     string `json:"name"`
	Category string `json:"category"`
	ID       int    `json:"id"`
	Image    string `json:"image"`
}
