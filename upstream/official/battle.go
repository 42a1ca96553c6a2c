package official

// Battle is one entry of /players/{tag}/battlelog. Team is the asked-for
// player's side.
type Battle struct {
	Type                    string         `json:"type"`
	BattleTime              string         `json:"battleTime"`
	IsLadderTournament      bool           `json:"isLadderTournament"`
	Arena                   Arena          `json:"arena"`
	GameMode                GameMode       `json:"gameMode"`
	DeckSelection           string         `json:"deckSelection"`
	Team                    []BattlePlayer `json:"team"`
	Opponent                []BattlePlayer `json:"opponent"`
	IsHostedMatch           bool           `json:"isHostedMatch"`
	ChallengeID             int            `json:"challengeId,omitempty"`
	ChallengeTitle          string         `json:"challengeTitle,omitempty"`
	ChallengeWinCountBefore *int           `json:"challengeWinCountBefore,omitempty"`
	TournamentTag           string         `json:"tournamentTag,omitempty"`
}

// GameMode names the rules a battle or tournament was played with.
type GameMode struct {
	ID   int    `json:"id"`
	Name string `json:"name,omitempty"`
}

// BattlePlayer is one player of a battle. StartingTrophies and
// TrophyChange are only given for trophy-road battles.
type BattlePlayer struct {
	Tag                     string      `json:"tag"`
	Name                    string      `json:"name"`
	StartingTrophies        *int        `json:"startingTrophies,omitempty"`
	TrophyChange            *int        `json:"trophyChange,omitempty"`
	Crowns                  int         `json:"crowns"`
	KingTowerHitPoints      int         `json:"kingTowerHitPoints,omitempty"`
	PrincessTowersHitPoints []int       `json:"princessTowersHitPoints,omitempty"`
	Clan                    *PlayerClan `json:"clan,omitempty"`
	Cards                   []CardLevel `json:"cards"`
}
