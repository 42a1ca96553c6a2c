package upstream

import (
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/upstream/catalog"
	"github.com/crownsdev/crowns/upstream/official"
)

// legacyClanType spells an upstream clan type ("open", "inviteOnly",
// "closed") the legacy way ("open", "invite only", "closed"); anything else
// is kept as given.
func legacyClanType(upstream string) string {
	return respell(upstream, "open", "invite only", "closed")
}

// legacyLocation is the legacy form of a clan location; nil when the
// upstream gave none. A region's code (the game gives none) comes from
// known, the catalog, when it has the region (nil: none known), else from
// the region's name (see catalog.Location.Code).
func legacyLocation(known *catalog.Catalog, l *official.Location) *models.Location {
	if l == nil {
		return nil
	}
	place := catalog.Location{ID: l.ID, Name: l.Name, IsCountry: l.IsCountry, CountryCode: l.CountryCode}
	if known != nil {
		if k, ok := known.Location(l.ID); ok && !k.IsCountry {
			place.RegionCode = k.RegionCode
		}
	}
	return &models.Location{Name: l.Name, IsCountry: l.IsCountry, Code: place.Code()}
}

// badge describes a badge id from the catalog; an id the catalog lacks
// gets catalog.UnknownBadge's placeholder name, category and image.
func (c *Client) badge(id int) legacy.Badge {
	b, ok := c.Catalog().Badge(id)
	if !ok {
		b = catalog.UnknownBadge(id)
	}
	return legacy.Badge{Name: b.Name, Category: b.Category, ID: b.ID, Image: b.Image()}
}
