package sandbox

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/crownsdev/crowns/upstream/official"
)

// clanFilter is a parsed clan search.
type clanFilter struct {
	name                   string
	locationID             int
	minMembers, maxMembers int
	minScore               int
	hasLocation, hasMin    bool
	hasMax, hasScore       bool
}

// parseClanFilter reads a clan search the way the official API checks it;
// the message is for a 400 answer.
func parseClanFilter(r *http.Request) (clanFilter, string) {
	q := r.URL.Query()
	var f clanFilter
	var ok [4]bool
	f.locationID, f.hasLocation, ok[0] = intParam(q, "locationId")
	f.minMembers, f.hasMin, ok[1] = intParam(q, "minMembers")
	f.maxMembers, f.hasMax, ok[2] = intParam(q, "maxMembers")
	f.minScore, f.hasScore, ok[3] = intParam(q, "minScore")
	if ok != [4]bool{true, true, true, true} {
		return f, "locationId, minMembers, maxMembers and minScore must be numbers"
	}
	f.name = q.Get("name")
	if q.Has("name") && utf8.RuneCountInString(f.name) < 3 {
		return f, "name needs to be at least three characters long"
	}
	if !q.Has("name") && !f.hasLocation && !f.hasMin && !f.hasMax && !f.hasScore {
		return f, "at least one filtering criteria must be defined"
	}
	f.name = strings.ToLower(f.name)
	return f, ""
}

func (f clanFilter) matches(c clanProfile, s clanSummary) bool {
	return strings.Contains(c.folded, f.name) &&
		(!f.hasLocation || (c.location != nil && c.location.ID == f.locationID)) &&
		(!f.hasMin || c.memberCount >= f.minMembers) &&
		(!f.hasMax || c.memberCount <= f.maxMembers) &&
		(!f.hasScore || s.score >= f.minScore)
}

func (w *World) serveClanSearch(rw http.ResponseWriter, r *http.Request) {
	filter, problem := parseClanFilter(r)
	if problem != "" {
		badRequest(rw, problem)
		return
	}
	summaries := w.summariesAt(w.clock.Now())
	var matches []int
	for i, c := range w.clans {
		if filter.matches(c, summaries[i]) {
			matches = append(matches, i)
		}
	}
	p, problem := pageOf(len(matches), r.URL.Query())
	if problem != "" {
		badRequest(rw, problem)
		return
	}
	list := official.List[official.Clan]{Items: make([]official.Clan, 0, p.to-p.from), Paging: p.paging}
	for _, i := range matches[p.from:p.to] {
		list.Items = append(list.Items, w.clanHeader(i, summaries[i]))
	}
	writeJSON(rw, http.StatusOK, list)
}

// clanOf resolves the clan of the request's tag, answering 404 itself
// when there is none.
func (w *World) clanOf(rw http.ResponseWriter, r *http.Request) (int, bool) {
	tag, ok := pathTag(r.PathValue("tag"))
	if ok {
		var i int
		if i, ok = w.clanNumber(tag); ok {
			return i, true
		}
	}
	notFound(rw, r)
	return 0, false
}

func (w *World) serveClan(rw http.ResponseWriter, r *http.Request) {
	if i, ok := w.clanOf(rw, r); ok {
		writeJSON(rw, http.StatusOK, w.clanAt(i, w.clock.Now()))
	}
}

func (w *World) serveClanMembers(rw http.ResponseWriter, r *http.Request) {
	i, ok := w.clanOf(rw, r)
	if !ok {
		return
	}
	members := w.membersAt(i, w.clock.Now())
	p, problem := pageOf(len(members), r.URL.Query())
	if problem != "" {
		badRequest(rw, problem)
		return
	}
	writeJSON(rw, http.StatusOK, official.List[official.ClanMember]{Items: members[p.from:p.to], Paging: p.paging})
}
