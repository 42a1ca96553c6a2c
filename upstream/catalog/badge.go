package catalog

import (
	"slices"
	"strconv"
)

// BadgeImageBase is where badge images live; a badge's image is
// BadgeImageBase + name + ".png".
const BadgeImageBase = "https://cr-api.github.io/cr-api-assets/badges/"

// What a badge id the catalog lacks is described with (see UnknownBadge).
const (
	UnknownBadgeCategory = "Unknown"
	UnknownBadgeImage    = BadgeImageBase + "no_clan.png"
)

// Badge is a clan badge. IDs start at 16000000.
type Badge struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	// Category groups badges: "01_Symbol", "02_Flag" or "03_Royale"
	// (UnknownBadgeCategory for an id the catalog lacks).
	Category string `json:"category"`
}

// Image is the URL of the badge's picture; UnknownBadgeImage for a badge
// of UnknownBadgeCategory.
func (b Badge) Image() string {
	if b.Category == UnknownBadgeCategory {
		return UnknownBadgeImage
	}
	return BadgeImageBase + b.Name + ".png"
}

// UnknownBadge describes a badge id the catalog lacks: named "Badge <id>",
// of UnknownBadgeCategory, pictured by UnknownBadgeImage.
func UnknownBadge(id int) Badge {
	return Badge{ID: id, Name: "Badge " + strconv.Itoa(id), Category: UnknownBadgeCategory}
}

// Badge returns the badge of id, if the catalog has it.
func (c *Catalog) Badge(id int) (Badge, bool) { return lookup(c.badges, c.badgeAt, id) }

// Badges returns every badge, ordered by id.
func (c *Catalog) Badges() []Badge { return slices.Clone(c.badges) }
