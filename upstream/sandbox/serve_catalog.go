package sandbox

import (
	"net/http"

	"github.com/crownsdev/crowns/upstream/catalog"
	"github.com/crownsdev/crowns/upstream/official"
)

func (w *World) serveCards(rw http.ResponseWriter, _ *http.Request) {
	list := official.List[official.Item]{Items: make([]official.Item, 0, len(w.cards))}
	for _, card := range w.cards {
		list.Items = append(list.Items, itemOf(card))
	}
	writeJSON(rw, http.StatusOK, list)
}

// serveLocations answers /locations, paged by limit, after and before as
// the official API pages it.
func (w *World) serveLocations(rw http.ResponseWriter, r *http.Request) {
	p, problem := pageOf(len(w.locations), r.URL.Query())
	if problem != "" {
		badRequest(rw, problem)
		return
	}
	list := official.List[official.Location]{Items: make([]official.Location, 0, p.to-p.from), Paging: p.paging}
	for _, l := range w.locations[p.from:p.to] {
		list.Items = append(list.Items, wireLocation(l))
	}
	writeJSON(rw, http.StatusOK, list)
}

// wireLocation is a catalog location as the official API shows it: no
// code for a region.
func wireLocation(l catalog.Location) official.Location {
	return official.Location{ID: l.ID, Name: l.Name, IsCountry: l.IsCountry, CountryCode: l.CountryCode}
}
