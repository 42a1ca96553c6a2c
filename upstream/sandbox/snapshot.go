package sandbox

import "github.com/crownsdev/crowns/upstream/official"

// Clan is the clan of tag (upper-case, without '#') as /v1/clans/%23TAG
// serves it at the clock's current time; false when the world has none.
func (w *World) Clan(tag string) (official.Clan, bool) {
	i, ok := w.clanNumber(tag)
	if !ok {
		return official.Clan{}, false
	}
	return w.clanAt(i, w.clock.Now()), true
}

// BattleLog is the battle log of player tag as
// /v1/players/%23TAG/battlelog serves it at the clock's current time.
func (w *World) BattleLog(tag string) ([]official.Battle, bool) {
	n, ok := w.playerNumber(tag)
	if !ok {
		return nil, false
	}
	return w.battleLogAt(w.player(n), w.clock.Now()), true
}

// Tournament is the tournament of tag as /v1/tournaments/%23TAG serves it
// at the clock's current time; false when it does not exist (yet).
func (w *World) Tournament(tag string) (official.Tournament, bool) {
	now := w.clock.Now()
	n, ok := w.tournamentNumber(tag, now)
	if !ok {
		return official.Tournament{}, false
	}
	return w.tournamentAt(w.tournament(n), now), true
}
