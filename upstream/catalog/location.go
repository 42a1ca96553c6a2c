package catalog

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
)

// Location is a region (IsCountry false) or a country. IDs start at
// 57000000. The game names a country's code and no region's; the legacy
// API gave regions a code too ("_EU", "_INT"), which RegionCode keeps.
type Location struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	IsCountry   bool   `json:"isCountry"`
	CountryCode string `json:"countryCode,omitempty"`
	// RegionCode is the legacy code of a region; empty for countries.
	RegionCode string `json:"regionCode,omitempty"`
}

// Code is the location's code as the legacy API gave it: the country code
// of a country, and of a region its RegionCode or, for a region the
// catalog has no code for, "_" and the initials of its name's words (the
// first two letters of a one-word name), upper-case: "_NA" for "North
// America", "_AN" for "Antarctica".
func (l Location) Code() string {
	if l.IsCountry {
		return l.CountryCode
	}
	return cmp.Or(l.RegionCode, regionCodeOf(l.Name))
}

// regionCodeOf derives a region's code from its name; "" for a name
// without letters.
func regionCodeOf(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) })
	var code []rune
	switch {
	case len(words) == 1:
		code = []rune(words[0])[:min(2, len([]rune(words[0])))]
	case len(words) > 1:
		for _, w := range words {
			code = append(code, []rune(w)[0])
		}
	}
	if len(code) == 0 {
		return ""
	}
	return "_" + strings.ToUpper(string(code))
}

// Location returns the location of id, if the catalog has it.
func (c *Catalog) Location(id int) (Location, bool) { return lookup(c.locations, c.placeAt, id) }

// Locations returns every location, regions first, ordered by id.
func (c *Catalog) Locations() []Location { return slices.Clone(c.locations) }
