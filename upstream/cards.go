package upstream

import (
	"cmp"
	"context"

	"github.com/crownsdev/crowns/upstream/official"
)

// CardListing is one card of the game's card list, completed by the
// catalog (key, type, unlock arena, description). A card the catalog lacks
// keeps what the upstream gave.
type CardListing struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	Key         string `json:"key"`
	MaxLevel    int    `json:"maxLevel"`
	Rarity      string `json:"rarity"`
	Elixir      int    `json:"elixir"`
	Type        string `json:"type"`
	Arena       int    `json:"arena"`
	Description string `json:"description"`
	Icon        string `json:"icon"`
}

// Cards lists every card of the game (GET /cards, every page).
func (c *Client) Cards(ctx context.Context) ([]CardListing, error) {
	items, err := listAll[official.Item](ctx, c, "/cards")
	if err != nil {
		return nil, err
	}
	cat := c.Catalog()
	out := make([]CardListing, 0, len(items))
	for _, item := range items {
		known, _ := cat.Card(item.ID)
		out = append(out, CardListing{
			ID:          item.ID,
			Name:        cmp.Or(item.Name, known.Name),
			Key:         known.Key,
			MaxLevel:    item.MaxLevel,
			Rarity:      cmp.Or(rarityOf(item.Rarity), known.Rarity),
			Elixir:      cmp.Or(item.ElixirCost, known.Elixir),
			Type:        known.Type,
			Arena:       known.Arena,
			Description: known.Description,
			Icon:        item.IconURLs.Medium,
		})
	}
	return out, nil
}
