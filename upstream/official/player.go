package official

// Player is the profile of /players/{tag}, reduced to the fields Crowns
// reads or serves from the sandbox.
type Player struct {
	Tag               string      `json:"tag"`
	Name              string      `json:"name"`
	ExpLevel          int         `json:"expLevel"`
	Trophies          int         `json:"trophies"`
	BestTrophies      int         `json:"bestTrophies"`
	Wins              int         `json:"wins"`
	Losses            int         `json:"losses"`
	BattleCount       int         `json:"battleCount"`
	Role              string      `json:"role,omitempty"`
	Donations         int         `json:"donations"`
	DonationsReceived int         `json:"donationsReceived"`
	Clan              *PlayerClan `json:"clan,omitempty"`
	Arena             Arena       `json:"arena"`
}
