package catalog

import "slices"

// BadgeImageBase is where badge images live; a badge's image is
// BadgeImageBase + name + ".png".
const BadgeImageBase = "https://cr-api.github.io/cr-api-assets/badges/"

// Badge is a clan badge. IDs start at 16000000.
type Badge struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	// Category groups badges: "01_Symbol", "02_Flag" or "03_Royale".
	Category string `json:"category"`
}

// Image is the URL of the badge's picture.
func (b Badge) Image() string { return BadgeImageBase + b.Name + ".png" }

// Badge returns the badge of id, if the catalog has it.
func (c *Catalog) Badge(id int) (Badge, bool) { return lookup(c.badges, c.badgeAt, id) }

// Badges returns every badge, ordered by id.
func (c *Catalog) Badges() []Badge { return slices.Clone(c.badges) }
