package sandbox

import (
	"net/http"
	"time"

	"github.com/crownsdev/crowns/upstream/official"
)

// playerOf resolves the player of the request's tag, answering 404 itself
// when there is none.
func (w *World) playerOf(rw http.ResponseWriter, r *http.Request) (playerProfile, bool) {
	if tag, ok := pathTag(r.PathValue("tag")); ok {
		if n, ok := w.playerNumber(tag); ok {
			return w.player(n), true
		}
	}
	notFound(rw, r)
	return playerProfile{}, false
}

func (w *World) servePlayer(rw http.ResponseWriter, r *http.Request) {
	if p, ok := w.playerOf(rw, r); ok {
		writeJSON(rw, http.StatusOK, w.profileAt(p, w.clock.Now()))
	}
}

func (w *World) serveBattleLog(rw http.ResponseWriter, r *http.Request) {
	if p, ok := w.playerOf(rw, r); ok {
		writeJSON(rw, http.StatusOK, w.battleLogAt(p, w.clock.Now()))
	}
}

// profileAt is the answer of /players/{tag} at now.
func (w *World) profileAt(p playerProfile, now time.Time) official.Player {
	slot := slotOf(now)
	trophies := w.trophiesAt(p, slot)
	battles := max((now.Unix()-worldOriginUnix)/int64(p.battleEvery/time.Second), 0)
	wins := int(battles * 48 / 100)
	arena := w.arenaOf(trophies)
	return official.Player{
		Tag:               "#" + p.tag,
		Name:              p.name,
		ExpLevel:          p.expLevel,
		Trophies:          trophies,
		BestTrophies:      p.baseTrophies + trophyWindow*30,
		Wins:              wins,
		Losses:            int(battles) - wins,
		BattleCount:       int(battles),
		Role:              p.role,
		Donations:         w.donationsAt(p, slot),
		DonationsReceived: w.receivedAt(p, slot),
		Clan:              w.playerClan(p),
		Arena:             official.Arena{ID: arena.ID, Name: arena.Name},
	}
}
