package legacy

import "encoding/json"

// MaxBattles is how many battles the battles route returns.
const MaxBattles = 25

// Battle is one battle of a player's log in the legacy shape. Team is the
// asked-for player's side.
type Battle struct {
	Type           string        `json:"type"`
	ChallengeType  string        `json:"challengeType,omitempty"`
	Mode           BattleMode    `json:"mode"`
	WinCountBefore *int          `json:"winCountBefore"`
	UTCTime        int64         `json:"utcTime"`
	DeckType       string        `json:"deckType"`
	TeamSize       int           `json:"teamSize"`
	Winner         int           `json:"winner"`
	TeamCrowns     int           `json:"teamCrowns"`
	OpponentCrowns int           `json:"opponentCrowns"`
	Team           []Participant `json:"team"`
	Opponent       []Participant `json:"opponent"`
	Arena          BattleArena   `json:"arena"`
}

// BattleMode describes the game mode of a battle.
type BattleMode struct {
	Name            string `json:"name"`
	Deck            string `json:"deck"`
	CardLevels      string `json:"cardLevels"`
	OvertimeSeconds int    `json:"overtimeSeconds"`
	Players         string `json:"players"`
	SameDeck        bool   `json:"sameDeck"`
}

// BattleArena is the arena a battle was played in.
type BattleArena struct {
	Name        string `json:"name"`
	Arena       string `json:"arena"`
	ArenaID     int    `json:"arenaID"`
	TrophyLimit int    `json:"trophyLimit"`
}

// Participant is one player of a battle.
type Participant struct {
	Tag           string           `json:"tag"`
	Name          string           `json:"name"`
	CrownsEarned  int              `json:"crownsEarned"`
	TrophyChange  *int             `json:"trophyChange,omitempty"`
	StartTrophies *int             `json:"startTrophies,omitempty"`
	Clan          *ParticipantClan `json:"clan"`
	DeckLink      string           `json:"deckLink"`
	Deck          []Card           `json:"deck"`
}

// ParticipantClan is the clan a battle participant was in, if any.
type ParticipantClan struct {
	Tag   string `json:"tag"`
	Name  string `json:"name"`
	Badge Badge  `json:"badge"`
}

// Card is a card of a deck, with the catalog's facts about it.
type Card struct {
	Name     string `json:"name"`
	Level    int    `json:"level"`
	MaxLevel int    `json:"maxLevel"`
	Rarity   string `json:"rarity"`
	// RequiredForUpgrade is the number of cards needed for the next level,
	// or the string "Maxed" at the card's maximum level.
	RequiredForUpgrade json.RawMessage `json:"requiredForUpgrade"`
	Icon               string          `json:"icon"`
	Key                string          `json:"key"`
	Elixir             int             `json:"elixir"`
	Type               string          `json:"type"`
	Arena              int             `json:"arena"`
	Description        string          `json:"description"`
	ID                 int             `json:"id"`
}
