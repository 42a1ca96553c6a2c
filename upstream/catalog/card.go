package catalog

import (
	"slices"
	"strings"
	"unicode"
)

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

// TypeOfID is the card type the game's numbering gives id: TypeTroop for
// 26xxxxxx, TypeBuilding for 27xxxxxx, TypeSpell for 28xxxxxx, "" otherwise.
func TypeOfID(id int) string {
	switch id / 1_000_000 {
	case 26:
		return TypeTroop
	case 27:
		return TypeBuilding
	case 28:
		return TypeSpell
	}
	return ""
}

// KeyOf is the kebab-case key of a card name, as the catalog spells keys:
// lower-case letters and digits, words joined by '-', other characters
// dropped ("Mini P.E.K.K.A" is "mini-pekka", "Royal Hogs" "royal-hogs").
func KeyOf(name string) string {
	var key strings.Builder
	pendingDash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if pendingDash && key.Len() > 0 {
				key.WriteByte('-')
			}
			pendingDash = false
			key.WriteRune(r)
		case r == ' ' || r == '-' || r == '_':
			pendingDash = true
		}
	}
	return key.String()
}
