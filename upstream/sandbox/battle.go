package sandbox

import (
	"slices"
	"time"

	"github.com/crownsdev/crowns/upstream/catalog"
	"github.com/crownsdev/crowns/upstream/official"
)

// worldOriginUnix is when the world's history starts (2016-03-02 00:00
// UTC): every player's k-th battle and every day's tournaments count from
// there.
const worldOriginUnix = 1456876800

// Battle log length bounds.
const (
	minBattleLog = 25
	maxBattleLog = 40
)

// unreleasedCard is a card the catalog does not know, which now and then
// shows up in a deck, as a freshly released card would.
var unreleasedCard = official.Item{Name: "Mystery Brewer", ID: 26000999, MaxLevel: 6, IconURLs: official.IconURLs{Medium: cardIcon("mystery-brewer")}}

// cardIcon is the picture of a card key.
func cardIcon(key string) string {
	return "https://cr-api.github.io/cr-api-assets/cards/" + key + ".png"
}

// itemOf is a catalog card as the official card list shows it.
func itemOf(card catalog.Card) official.Item {
	return official.Item{Name: card.Name, ID: card.ID, MaxLevel: catalog.MaxLevel(card.Rarity), IconURLs: official.IconURLs{Medium: cardIcon(card.Key)}}
}

// battleLogAt is the player's battle log at now, newest first.
func (w *World) battleLogAt(p playerProfile, now time.Time) []official.Battle {
	every := int64(p.battleEvery / time.Second)
	latest := (now.Unix() - worldOriginUnix) / every
	if latest >= 0 && w.battleTime(p, latest).After(now) {
		latest--
	}
	count := minBattleLog + int(hashOf(w.seed, saltBattle, uint64(p.number))%(maxBattleLog-minBattleLog+1))
	log := make([]official.Battle, 0, count)
	for k := latest; k >= 0 && len(log) < count; k-- {
		log = append(log, w.battle(p, k))
	}
	return log
}

// battleTime is when the player's k-th battle was played: one every
// battleEvery, each a little late, never past the next.
func (w *World) battleTime(p playerProfile, k int64) time.Time {
	every := int64(p.battleEvery / time.Second)
	late := int64(hashOf(w.seed, saltBattleTime, uint64(p.number), uint64(k)) % uint64(every/2))
	return time.Unix(worldOriginUnix+k*every+late, 0).UTC()
}

// battleKind is a kind of battle the world plays: the upstream type, its
// game mode and its share of all battles.
type battleKind struct {
	upstreamType string
	mode         official.GameMode
	percent      int
}

// battleKinds are the world's battles; their shares add up to 100.
var battleKinds = []battleKind{
	{"PvP", official.GameMode{ID: 72000006, Name: "Ladder"}, 50},
	{"challenge", official.GameMode{ID: 72000009, Name: "Challenge"}, 20},
	{"casual2v2", official.GameMode{ID: 72000045, Name: "TeamVsTeam"}, 10},
	{"tournament", official.GameMode{ID: 72000010, Name: "Tournament"}, 8},
	{"clanMate", official.GameMode{ID: 72000007, Name: "Friendly"}, 7},
	{"riverRacePvP", official.GameMode{ID: 72000201, Name: "CW_Battle_1v1"}, 5},
}

// draftMode is the game mode of draft challenges, where decks are picked
// from offered cards.
var draftMode = official.GameMode{ID: 72000013, Name: "Draft_Competitive"}

func chooseKind(d *draw) battleKind {
	r := d.intn(100)
	for _, k := range battleKinds {
		if r < k.percent {
			return k
		}
		r -= k.percent
	}
	return battleKinds[0]
}

// battle derives the player's k-th battle.
func (w *World) battle(p playerProfile, k int64) official.Battle {
	d := newDraw(w.seed, saltBattle, uint64(p.number), uint64(k))
	at := w.battleTime(p, k)
	trophies := w.trophiesAt(p, slotOf(at))
	kind := chooseKind(d)
	if kind.upstreamType == "clanMate" && (p.clan < 0 || w.clans[p.clan].memberCount < 2) {
		kind = battleKinds[0]
	}
	arena := w.arenaOf(trophies)
	b := official.Battle{
		Type:          kind.upstreamType,
		BattleTime:    official.FormatTime(at),
		Arena:         official.Arena{ID: arena.ID, Name: arena.Name},
		GameMode:      kind.mode,
		DeckSelection: "collection",
	}
	draft := false
	switch kind.upstreamType {
	case "challenge":
		b.ChallengeID, b.ChallengeTitle = 73000000, "Classic Challenge"
		if d.percent(30) {
			b.ChallengeID, b.ChallengeTitle = 73000001, "Grand Challenge"
		}
		wins := d.between(0, 11)
		b.ChallengeWinCountBefore = &wins
		if draft = d.percent(15); draft {
			b.GameMode, b.DeckSelection = draftMode, "draft"
		}
	case "tournament":
		b.TournamentTag = "#" + w.tournament(w.tournamentNumberNear(d, at)).tag
	}
	team, opponents := []playerProfile{p}, []playerProfile{w.opponent(d, p, kind.upstreamType)}
	if kind.upstreamType == "casual2v2" {
		team = append(team, w.teammate(d, p))
		opponents = append(opponents, w.someone(d, p.number))
	}
	mine, theirs := crownsOf(d)
	b.Team = w.side(d, team, mine, theirs, draft, k)
	b.Opponent = w.side(d, opponents, theirs, mine, draft, -1)
	switch kind.upstreamType {
	case "PvP":
		w.ladderTrophies(d, &b, trophies, mine, theirs)
	case "challenge", "riverRacePvP":
		w.startingTrophies(&b, team, opponents, slotOf(at))
	}
	return b
}

// startingTrophies gives each player of a 1v1 battle off the trophy road
// the trophies they had when it started, as the game API does for such
// battles (challenges, river race duels): the count without a change.
func (w *World) startingTrophies(b *official.Battle, team, opponents []playerProfile, slot int64) {
	for i, p := range team {
		trophies := w.trophiesAt(p, slot)
		b.Team[i].StartingTrophies = &trophies
	}
	for i, p := range opponents {
		trophies := w.trophiesAt(p, slot)
		b.Opponent[i].StartingTrophies = &trophies
	}
}

// crownsOf decides a battle's result: a win or a loss about equally often,
// now and then a draw.
func crownsOf(d *draw) (mine, theirs int) {
	switch r := d.intn(100); {
	case r < 48:
		mine = d.between(1, 3)
		return mine, d.between(0, mine-1)
	case r < 96:
		theirs = d.between(1, 3)
		return d.between(0, theirs-1), theirs
	default:
		draw := d.between(0, 1)
		return draw, draw
	}
}

// ladderTrophies adds the trophy-road facts of a 1v1 ladder battle.
func (w *World) ladderTrophies(d *draw, b *official.Battle, trophies, mine, theirs int) {
	change := d.between(25, 35)
	switch {
	case mine == theirs:
		change = 0
	case mine < theirs:
		change = -change
	}
	opponentStart, opponentChange := max(trophies+d.between(-120, 120), 0), -change
	b.Team[0].StartingTrophies, b.Team[0].TrophyChange = &trophies, &change
	b.Opponent[0].StartingTrophies, b.Opponent[0].TrophyChange = &opponentStart, &opponentChange
}

// side renders the players of one side. Teammates share their towers, so
// each carries the side's crowns. battleIndex >= 0 marks the log owner's
// side, whose deck varies a little from battle to battle.
func (w *World) side(d *draw, players []playerProfile, crowns, against int, draft bool, battleIndex int64) []official.BattlePlayer {
	out := make([]official.BattlePlayer, len(players))
	for i, p := range players {
		deck := p.deck[:]
		switch {
		case draft:
			deck = w.deckOf(d)
		case i == 0 && battleIndex >= 0:
			deck = w.variedDeck(d, p)
		}
		out[i] = official.BattlePlayer{
			Tag:    "#" + p.tag,
			Name:   p.name,
			Crowns: crowns,
			Clan:   w.playerClan(p),
			Cards:  w.cardLevels(d, p, deck),
		}
		if against < 3 {
			out[i].KingTowerHitPoints = d.between(4000, 7000)
		}
		for range 2 - min(against, 2) {
			out[i].PrincessTowersHitPoints = append(out[i].PrincessTowersHitPoints, d.between(100, 4000))
		}
	}
	return out
}

// variedDeck is the player's deck with, now and then, a card swapped or
// the unreleased card tried out.
func (w *World) variedDeck(d *draw, p playerProfile) []int {
	deck := append([]int(nil), p.deck[:]...)
	if d.percent(30) {
		if card := pick(d, w.cards).ID; !slices.Contains(deck, card) {
			deck[d.intn(len(deck))] = card
		}
	}
	if d.percent(4) {
		deck[len(deck)-1] = unreleasedCard.ID
	}
	return deck
}

// cardLevels renders a deck at the player's levels. A maxed card carries
// the player's star level of it, as the game API gives one (none, or 1 to
// 3), the same in every battle.
func (w *World) cardLevels(d *draw, p playerProfile, deck []int) []official.CardLevel {
	out := make([]official.CardLevel, len(deck))
	for i, id := range deck {
		item := unreleasedCard
		if card, ok := w.catalog.Card(id); ok {
			item = itemOf(card)
		}
		out[i] = official.CardLevel{Item: item, Level: max(item.MaxLevel-p.levelGap-d.intn(2), 1)}
		if out[i].Level == item.MaxLevel {
			out[i].StarLevel = int(hashOf(w.seed, saltStarLevel, uint64(p.number), uint64(id)) % 4)
		}
	}
	return out
}

// playerClan is the short form of the player's clan; nil when clanless.
func (w *World) playerClan(p playerProfile) *official.PlayerClan {
	if p.clan < 0 {
		return nil
	}
	c := w.clans[p.clan]
	return &official.PlayerClan{Tag: "#" + c.tag, Name: c.name, BadgeID: c.badgeID}
}

// opponent is whom the player faced: a clanmate in clanMate battles,
// anyone else otherwise.
func (w *World) opponent(d *draw, p playerProfile, upstreamType string) playerProfile {
	if upstreamType == "clanMate" {
		return w.teammate(d, p)
	}
	return w.someone(d, p.number)
}

// teammate is a clanmate of the player, or anyone for a clanless player.
func (w *World) teammate(d *draw, p playerProfile) playerProfile {
	if p.clan < 0 || w.clans[p.clan].memberCount < 2 {
		return w.someone(d, p.number)
	}
	count := w.clans[p.clan].memberCount
	position := (p.number%maxMembers + d.between(1, count-1)) % count
	return w.member(p.clan, position)
}

// someone is a player of the world other than the one numbered not.
func (w *World) someone(d *draw, not int) playerProfile {
	for {
		if d.percent(10) && w.clanless > 0 {
			if n := w.clanlessNumber(d.intn(w.clanless)); n != not {
				return w.player(n)
			}
			continue
		}
		clan := d.intn(len(w.clans))
		if n := memberNumber(clan, d.intn(w.clans[clan].memberCount)); n != not {
			return w.player(n)
		}
	}
}
