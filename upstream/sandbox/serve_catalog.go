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

func (w *World) serveLocations(rw http.ResponseWriter, _ *http.Request) {
	list := official.List[official.Location]{Items: make([]official.Location, 0, len(w.locations)), Paging: &official.Paging{}}
	for _, l := range w.locations {
		list.Items = append(list.Items, wireLocation(l))
	}
	writeJSON(rw, http.StatusOK, list)
}

// wireLocation is a catalog location as the official API shows it: no
// code for a region.
func wireLocation(l catalog.Location) official.Location {
	return official.Location{ID: l.ID, Name: l.Name, IsCountry: l.IsCountry, CountryCode: l.CountryCode}
}
