package catalog

import "slices"

// Location is a region (IsCountry false, no code) or a country. IDs start
// at 57000000.
type Location struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	IsCountry   bool   `json:"isCountry"`
	CountryCode string `json:"countryCode,omitempty"`
}

// Location returns the location of id, if the catalog has it.
func (c *Catalog) Location(id int) (Location, bool) { return lookup(c.locations, c.placeAt, id) }

// Locations returns every location, regions first, ordered by id.
func (c *Catalog) Locations() []Location { return slices.Clone(c.locations) }
