package upstream

import (
	"cmp"
	"context"
	"fmt"
	"net/url"

	"github.com/crownsdev/crowns/upstream/catalog"
	"github.com/crownsdev/crowns/upstream/official"
)

// maxListPages bounds how many pages one list fetch follows, so that a
// game API answering cursors in a circle cannot keep it going.
const maxListPages = 100

// listAll fetches every page of the paged list at path, following the
// after cursors until a page has none.
func listAll[T any](ctx context.Context, c *Client, path string) ([]T, error) {
	var items []T
	query := url.Values{}
	for range maxListPages {
		var page official.List[T]
		if err := c.get(ctx, request{path: path, query: query, endpoint: listEndpoint(path)}, &page); err != nil {
			return nil, err
		}
		items = append(items, page.Items...)
		if page.Paging == nil || page.Paging.Cursors.After == "" {
			return items, nil
		}
		query = url.Values{"after": {page.Paging.Cursors.After}}
	}
	return nil, fmt.Errorf("%s: more than %d pages", path, maxListPages)
}

// catalogCards is the game's card list as catalog cards: name, rarity
// (spelled the legacy way; told by the maximum level where the list gives
// none, as today's does), elixir, and the key and type the name and id
// give. nil stays nil (no list).
func catalogCards(items []official.Item) []catalog.Card {
	if items == nil {
		return nil
	}
	cards := make([]catalog.Card, 0, len(items))
	for _, item := range items {
		cards = append(cards, catalog.Card{
			ID:     item.ID,
			Key:    catalog.KeyOf(item.Name),
			Name:   item.Name,
			Elixir: item.ElixirCost,
			Type:   catalog.TypeOfID(item.ID),
			Rarity: cmp.Or(rarityOf(item.Rarity), catalog.RarityOfMaxLevel(item.MaxLevel)),
		})
	}
	return cards
}

// catalogLocations is the game's location list as catalog locations. nil
// stays nil (no list).
func catalogLocations(items []official.Location) []catalog.Location {
	if items == nil {
		return nil
	}
	locations := make([]catalog.Location, 0, len(items))
	for _, l := range items {
		locations = append(locations, catalog.Location{ID: l.ID, Name: l.Name, IsCountry: l.IsCountry, CountryCode: l.CountryCode})
	}
	return locations
}
