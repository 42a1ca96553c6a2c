package sandbox

import (
	"net/http"

	"github.com/crownsdev/crowns/upstream/catalog"
	"github.com/crownsdev/crowns/upstream/wire"
)

func (w *World) serveCards(rw http.ResponseWriter, _ *http.Request) {
	list := wire.List[wire.Item]{Items: make([]wire.Item, 0, len(w.cards))}
	for _, card := range w.cards {
		list.Items = append(list.Items, itemOf(card))
	}
	writeJSON(rw, http.StatusOK, list)
}

func (w *World) serveLocations(rw http.ResponseWriter, _ *http.Request) {
	list := wire.List[wire.Location]{Items: make([]wire.Location, 0, len(w.locations)), Paging: &wire.Paging{}}
	for _, l := range w.locations {
		list.Items = append(list.Items, wireLocation(l))
	}
	writeJSON(rw, http.StatusOK, list)
}

// wireLocation is a catalog location as the official API shows it: no
// code for a region.
func wireLocation(l catalog.Location) wire.Location {
	return wire.Location{ID: l.ID, Name: l.Name, IsCountry: l.IsCountry, CountryCode: l.CountryCode}
}
