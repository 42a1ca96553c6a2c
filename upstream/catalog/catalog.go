package catalog

import (
	"embed"
	"encoding/json"
	"fmt"
	"slices"
)

//go:embed cards.json badges.json arenas.json locations.json
var files embed.FS

// Catalog is the loaded, read-only set of game facts. It is safe for
// concurrent use.
type Catalog struct {
	cards     []Card
	badges    []Badge
	arenas    []Arena
	locations []Location
	cardAt    map[int]int
	badgeAt   map[int]int
	arenaAt   map[int]int
	placeAt   map[int]int
}

// Load parses the embedded data files and checks them.
func Load() (*Catalog, error) {
	c := &Catalog{}
	if err := decode("cards.json", &c.cards); err != nil {
		return nil, err
	}
	if err := decode("badges.json", &c.badges); err != nil {
		return nil, err
	}
	if err := decode("arenas.json", &c.arenas); err != nil {
		return nil, err
	}
	if err := decode("locations.json", &c.locations); err != nil {
		return nil, err
	}
	var err error
	if c.cardAt, err = indexByID("cards.json", c.cards, func(card Card) int { return card.ID }); err != nil {
		return nil, err
	}
	if c.badgeAt, err = indexByID("badges.json", c.badges, func(b Badge) int { return b.ID }); err != nil {
		return nil, err
	}
	if c.arenaAt, err = indexByID("arenas.json", c.arenas, func(a Arena) int { return a.ID }); err != nil {
		return nil, err
	}
	if c.placeAt, err = indexByID("locations.json", c.locations, func(l Location) int { return l.ID }); err != nil {
		return nil, err
	}
	for _, card := range c.cards {
		if MaxLevel(card.Rarity) == 0 {
			return nil, fmt.Errorf("catalog: card %d has unknown rarity %q", card.ID, card.Rarity)
		}
	}
	if !slices.IsSortedFunc(c.arenas, func(a, b Arena) int { return a.TrophyLimit - b.TrophyLimit }) {
		return nil, fmt.Errorf("catalog: arenas.json must list arenas by rising trophy limit")
	}
	return c, nil
}

func decode(name string, into any) error {
	raw, err := files.ReadFile(name)
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("catalog: %s: %w", name, err)
	}
	return nil
}

// indexByID maps each entry's id to its position and rejects duplicates.
func indexByID[T any](name string, entries []T, id func(T) int) (map[int]int, error) {
	at := make(map[int]int, len(entries))
	for i, entry := range entries {
		if _, dup := at[id(entry)]; dup {
			return nil, fmt.Errorf("catalog: %s lists id %d twice", name, id(entry))
		}
		at[id(entry)] = i
	}
	return at, nil
}

// lookup returns the entry of id, if the catalog has one.
func lookup[T any](entries []T, at map[int]int, id int) (T, bool) {
	i, ok := at[id]
	if !ok {
		var zero T
		return zero, false
	}
	return entries[i], true
}
