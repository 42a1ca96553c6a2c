package catalog

import (
	"cmp"
	"slices"
)

// Merge returns a new catalog: c with the cards and locations the game API
// listed merged over its own, matched by id. A listed card takes the
// listing's name, rarity and elixir where given and keeps the catalog's
// key, type, unlock arena and description; a listed location replaces the
// catalog's, keeping its RegionCode (the game gives regions none); entries
// the catalog lacks are added as listed, and entries the listing lacks are
// kept. A nil list leaves that kind as it is. Badges and arenas are c's.
// c itself is not changed, so a catalog in use stays valid.
func (c *Catalog) Merge(cards []Card, locations []Location) *Catalog {
	merged := *c
	if cards != nil {
		merged.cards, merged.cardAt = mergeByID(c.cards, cards, func(card Card) int { return card.ID }, mergeCard)
	}
	if locations != nil {
		merged.locations, merged.placeAt = mergeByID(c.locations, locations, func(l Location) int { return l.ID }, mergeLocation)
	}
	return &merged
}

func mergeCard(known, listed Card) Card {
	known.Name = cmp.Or(listed.Name, known.Name)
	known.Rarity = cmp.Or(listed.Rarity, known.Rarity)
	known.Elixir = cmp.Or(listed.Elixir, known.Elixir)
	known.Key = cmp.Or(known.Key, listed.Key)
	known.Type = cmp.Or(known.Type, listed.Type)
	return known
}

func mergeLocation(known, listed Location) Location {
	listed.RegionCode = cmp.Or(listed.RegionCode, known.RegionCode)
	return listed
}

// mergeByID merges listed over entries and returns the result ordered by
// id with its index. A listed id given twice is merged twice.
func mergeByID[T any](entries []T, listed []T, id func(T) int, merge func(known, listed T) T) ([]T, map[int]int) {
	out := slices.Clone(entries)
	outAt := make(map[int]int, len(entries)+len(listed))
	for i, entry := range out {
		outAt[id(entry)] = i
	}
	for _, entry := range listed {
		if i, ok := outAt[id(entry)]; ok {
			out[i] = merge(out[i], entry)
			continue
		}
		outAt[id(entry)] = len(out)
		out = append(out, entry)
	}
	slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(id(a), id(b)) })
	for i, entry := range out {
		outAt[id(entry)] = i
	}
	return out, outAt
}
