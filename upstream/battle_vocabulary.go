package upstream

import "strings"

// Legacy battle types.
const (
	battleTypePvP        = "PvP"
	battleTypeChallenge  = "challenge"
	battleTypeTournament = "tournament"
	battleType2v2        = "2v2"
	battleTypeClanMate   = "clanMate"
	battleTypeFriendly   = "friendly"
)

// Overtime of the legacy mode description, by family: competitive battles
// (challenges and tournaments) play the long three-minute overtime, every
// other battle the one-minute overtime of the trophy road.
const (
	overtimeCompetitive = 180
	overtimeStandard    = 60
)

// battleKind is what a battle's upstream type says in legacy terms.
type battleKind struct {
	legacy          string
	cardLevels      string // "Tournament" (capped levels) or "Ladder"
	overtimeSeconds int
}

// battleKindOf maps an upstream battle type. "PvP", "challenge",
// "tournament", "clanMate" and "friendly" keep their legacy names, every
// 2v2 kind ("pvp2v2", "clanMate2v2", "casual2v2", "challenge2v2") becomes
// "2v2", and any other type is kept as the upstream spells it. Challenges
// and tournaments play with tournament card levels.
func battleKindOf(upstream string) battleKind {
	key := vocabularyKey(upstream)
	kind := battleKind{legacy: upstream, cardLevels: "Ladder", overtimeSeconds: overtimeStandard}
	if strings.Contains(key, "challenge") || strings.Contains(key, "tournament") {
		kind.cardLevels, kind.overtimeSeconds = "Tournament", overtimeCompetitive
	}
	switch {
	case strings.Contains(key, "2v2"):
		kind.legacy = battleType2v2
	case key == "pvp":
		kind.legacy = battleTypePvP
	case key == "challenge":
		kind.legacy = battleTypeChallenge
	case key == "tournament":
		kind.legacy = battleTypeTournament
	case key == "clanmate":
		kind.legacy = battleTypeClanMate
	case key == "friendly":
		kind.legacy = battleTypeFriendly
	}
	return kind
}

// classicChallengeID is the challenge id of the game's Classic Challenge,
// used when an answer carries no challenge title.
const classicChallengeID = 73000000

// challengeTypeOf is "classic" for the Classic Challenge and "unknown" for
// every other challenge.
func challengeTypeOf(title string, id int) string {
	if strings.Contains(strings.ToLower(title), "classic") || (title == "" && id == classicChallengeID) {
		return "classic"
	}
	return "unknown"
}

// deckSelection is the legacy description of how decks were chosen.
type deckSelection struct {
	name     string // BattleMode.Deck
	deckType string // Battle.DeckType
}

// deckSelectionOf maps an upstream deckSelection: the player's own deck
// ("collection") is a "slotDeck"; drafts are "draftDeck"; decks handed out
// by the event ("predefined", "eventDeck") are "eventDeck"; picks among
// offered decks are "pickDeck".
func deckSelectionOf(upstream string) deckSelection {
	switch vocabularyKey(upstream) {
	case "collection":
		return deckSelection{"Collection", "slotDeck"}
	case "draft", "draftcompetitive":
		return deckSelection{"Draft", "draftDeck"}
	case "predefined":
		return deckSelection{"Predefined", "eventDeck"}
	case "eventdeck":
		return deckSelection{"Event", "eventDeck"}
	case "pick", "wardeckpick", "quaddeckpick":
		return deckSelection{"Pick", "pickDeck"}
	default:
		return deckSelection{"Unknown", "unknown"}
	}
}
