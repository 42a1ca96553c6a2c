package upstream

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/crownsdev/crowns/models/legacy"

	"github.com/crownsdev/crowns/upstream/official"
)

// deckLinkBase starts the game's deep link that opens a deck; the card ids
// follow, separated by ';'.
const deckLinkBase = "https://link.clashroyale.com/deck/en?deck="

// PlayerBattles returns the player's most recent battles, newest first, at
// most legacy.MaxBattles (GET /players/%23TAG/battlelog).
func (c *Client) PlayerBattles(ctx context.Context, tag string) ([]legacy.Battle, error) {
	var log []official.Battle
	if err := c.get(ctx, request{path: "/players/" + tagPath(tag) + "/battlelog", endpoint: endpointBattlelog, answers: listed(&log)}, &log); err != nil {
		return nil, err
	}
	battles := make([]legacy.Battle, 0, min(len(log), legacy.MaxBattles))
	for _, b := range log {
		battles = append(battles, c.battle(b))
	}
	slices.SortStableFunc(battles, func(a, b legacy.Battle) int { return cmp.Compare(b.UTCTime, a.UTCTime) })
	return battles[:min(len(battles), legacy.MaxBattles)], nil
}

// battle maps one upstream battle to the legacy shape.
func (c *Client) battle(b official.Battle) legacy.Battle {
	kind := battleKindOf(b.Type)
	deck := deckSelectionOf(b.DeckSelection)
	out := legacy.Battle{
		Type:     kind.legacy,
		DeckType: deck.deckType,
		TeamSize: len(b.Team),
		Mode: legacy.BattleMode{
			Name:            b.GameMode.Name,
			Deck:            deck.name,
			CardLevels:      kind.cardLevels,
			OvertimeSeconds: kind.overtimeSeconds,
			Players:         playersOf(len(b.Team)),
			SameDeck:        sameDeck(b),
		},
		TeamCrowns:     sideCrowns(b.Team),
		OpponentCrowns: sideCrowns(b.Opponent),
		Team:           c.participants(b.Team),
		Opponent:       c.participants(b.Opponent),
		Arena:          c.arena(b.Arena),
	}
	out.Winner = out.TeamCrowns - out.OpponentCrowns
	if at, ok := official.ParseTime(b.BattleTime); ok {
		out.UTCTime = at.Unix()
	}
	if kind.legacy == battleTypeChallenge {
		out.ChallengeType = challengeTypeOf(b.ChallengeTitle, b.ChallengeID)
		out.WinCountBefore = b.ChallengeWinCountBefore
	}
	return out
}

// sideCrowns is the crowns a side took. Teammates share their towers, so
// in a 2v2 each teammate carries the team's count: the side has the highest
// count of its players, not their sum (a side never takes more than three).
func sideCrowns(side []official.BattlePlayer) int {
	crowns := 0
	for _, p := range side {
		crowns = max(crowns, p.Crowns)
	}
	return crowns
}

func playersOf(teamSize int) string {
	if teamSize > 1 {
		return "TvT"
	}
	return "PvP"
}

// sameDeck reports whether every player of the battle played the same
// cards, as in mirror modes.
func sameDeck(b official.Battle) bool {
	players := append(slices.Clone(b.Team), b.Opponent...)
	if len(players) < 2 || len(players[0].Cards) == 0 {
		return false
	}
	first := deckSignature(players[0])
	for _, p := range players[1:] {
		if deckSignature(p) != first {
			return false
		}
	}
	return true
}

func deckSignature(p official.BattlePlayer) string {
	ids := make([]int, 0, len(p.Cards))
	for _, card := range p.Cards {
		ids = append(ids, card.ID)
	}
	slices.Sort(ids)
	return joinIDs(ids)
}

func joinIDs(ids []int) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(id)
	}
	return strings.Join(parts, ";")
}

func (c *Client) participants(side []official.BattlePlayer) []legacy.Participant {
	out := make([]legacy.Participant, 0, len(side))
	for _, p := range side {
		ids := make([]int, 0, len(p.Cards))
		deck := make([]legacy.Card, 0, len(p.Cards))
		for _, card := range p.Cards {
			ids = append(ids, card.ID)
			deck = append(deck, c.card(card))
		}
		participant := legacy.Participant{
			Tag:           bareTag(p.Tag),
			Name:          p.Name,
			CrownsEarned:  p.Crowns,
			TrophyChange:  p.TrophyChange,
			StartTrophies: p.StartingTrophies,
			DeckLink:      deckLinkBase + joinIDs(ids),
			Deck:          deck,
		}
		if p.Clan != nil && p.Clan.Tag != "" {
			participant.Clan = &legacy.ParticipantClan{Tag: bareTag(p.Clan.Tag), Name: p.Clan.Name, Badge: c.badge(p.Clan.BadgeID)}
		}
		out = append(out, participant)
	}
	return out
}

// arena describes a battle's arena from the catalog. An arena the catalog
// lacks keeps the upstream's id (as arenaID) and name (as both name and
// arena label), the name being "Arena <id>" when the upstream gave none;
// its trophy limit is unknown (0). So does an arena the game names other
// than the catalog's entry of its id does (by neither its name nor its
// label): the game has renumbered arenas since the catalog's ids were
// taken (today's 54000001 is "Arena 1", the catalog's "Bone Pit"), and the
// game's own name is the truth of today.
func (c *Client) arena(a official.Arena) legacy.BattleArena {
	known, ok := c.Catalog().Arena(a.ID)
	if ok && a.Name != "" && !strings.EqualFold(a.Name, known.Name) && !strings.EqualFold(a.Name, known.Label) {
		ok = false
	}
	if !ok {
		name := cmp.Or(a.Name, "Arena "+strconv.Itoa(a.ID))
		return legacy.BattleArena{Name: name, Arena: name, ArenaID: a.ID}
	}
	return legacy.BattleArena{Name: known.Name, Arena: known.Label, ArenaID: known.Number, TrophyLimit: known.TrophyLimit}
}
