package upstream

import (
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/wire"
)

// legacyClanType spells an upstream clan type ("open", "inviteOnly",
// "closed") the legacy way ("open", "invite only", "closed"); anything else
// is kept as given.
func legacyClanType(upstream string) string {
	return respell(upstream, "open", "invite only", "closed")
}

// legacyLocation is the legacy form of a clan location; nil when the
// upstream gave none.
func legacyLocation(l *wire.Location) *models.Location {
	if l == nil {
		return nil
	}
	return &models.Location{Name: l.Name, IsCountry: l.IsCountry, Code: l.CountryCode}
}

// badge describes a badge id from the catalog; an id the catalog lacks
// keeps only its id.
func (c *Client) badge(id int) models.Badge {
	b, ok := c.catalog.Badge(id)
	if !ok {
		return models.Badge{ID: id}
	}
	return models.Badge{Name: b.Name, Category: b.Category, ID: b.ID, Image: b.Image()}
}
