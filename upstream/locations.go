package upstream

import (
	"context"

	"github.com/crownsdev/crowns/upstream/official"
)

// LocationListing is a region (IsCountry false, no code) or a country of
// the game's location list; ID is what clan search takes as locationId.
type LocationListing struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	IsCountry   bool   `json:"isCountry"`
	CountryCode string `json:"countryCode,omitempty"`
}

// Locations lists the game's regions and countries (GET /locations, every
// page).
func (c *Client) Locations(ctx context.Context) ([]LocationListing, error) {
	items, err := listAll[official.Location](ctx, c, "/locations")
	if err != nil {
		return nil, err
	}
	out := make([]LocationListing, 0, len(items))
	for _, l := range items {
		out = append(out, LocationListing(l))
	}
	return out, nil
}
