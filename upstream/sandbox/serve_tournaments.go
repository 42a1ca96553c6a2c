package sandbox

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/crownsdev/crowns/upstream/official"
)

func (w *World) serveTournamentSearch(rw http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name := q.Get("name")
	if utf8.RuneCountInString(name) < 3 {
		badRequest(rw, "name needs to be at least three characters long")
		return
	}
	now := w.clock.Now()
	var matches []tournamentProfile
	for _, t := range w.recentTournaments(now) {
		if strings.Contains(strings.ToLower(t.name), strings.ToLower(name)) {
			matches = append(matches, t)
		}
	}
	p, problem := pageOf(len(matches), q)
	if problem != "" {
		badRequest(rw, problem)
		return
	}
	list := official.List[official.TournamentHeader]{Items: make([]official.TournamentHeader, 0, p.to-p.from), Paging: p.paging}
	for _, t := range matches[p.from:p.to] {
		list.Items = append(list.Items, w.headerAt(t, now))
	}
	writeJSON(rw, http.StatusOK, list)
}

func (w *World) serveTournament(rw http.ResponseWriter, r *http.Request) {
	now := w.clock.Now()
	if tag, ok := pathTag(r.PathValue("tag")); ok {
		if n, ok := w.tournamentNumber(tag, now); ok {
			writeJSON(rw, http.StatusOK, w.tournamentAt(w.tournament(n), now))
			return
		}
	}
	notFound(rw, r)
}
