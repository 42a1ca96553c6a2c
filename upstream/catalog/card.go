package catalog

import "slices"

// Card types.
const (
	TypeTroop    = "Troop"
	TypeBuilding = "Building"
	TypeSpell    = "Spell"
)

// Card is what the catalog knows of one card. IDs follow the game's
// numbering: 26000000+ troops, 27000000+ buildings, 28000000+ spells.
type Card struct {
	ID int `json:"id"`
	// Key is the card's kebab-case name, e.g. "mini-pekka".
	Key    string `json:"key"`
	Name   string `json:"name"`
	Elixir int    `json:"elixir"`
	// Type is TypeTroop, TypeBuilding or TypeSpell.
	Type string `json:"type"`
	// Rarity is one of the Rarity* constants.
	Rarity string `json:"rarity"`
	// Arena is the number of the arena that unlocks the card (0: the
	// training camp).
	Arena       int    `json:"arena"`
	Description string `json:"description"`
}

// Card returns the card of id, if the catalog has it.
func (c *Catalog) Card(id int) (Card, bool) { return lookup(c.cards, c.cardAt, id) }

// Cards returns every card, ordered by id.
func (c *Catalog) Cards() []Card { return slices.Clone(c.cards) }
