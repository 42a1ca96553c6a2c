package upstream

import (
	"cmp"
	"encoding/json"
	"strconv"

	"github.com/crownsdev/crowns/models/legacy"

	"github.com/crownsdev/crowns/upstream/catalog"
	"github.com/crownsdev/crowns/upstream/official"
)

// card renders a deck card: what the upstream gave (name, level, maximum
// level, icon, and rarity and elixir when present) completed by the
// catalog. A card the catalog lacks keeps the upstream's facts, its rarity
// told by its maximum level, its key by its name and its type by its id,
// as a card of the game's /cards list gets them, and zero values
// elsewhere.
func (c *Client) card(in official.CardLevel) legacy.Card {
	known, _ := c.Catalog().Card(in.ID)
	rarity := cmp.Or(rarityOf(in.Rarity), known.Rarity, catalog.RarityOfMaxLevel(in.MaxLevel))
	return legacy.Card{
		Name:               cmp.Or(in.Name, known.Name),
		Level:              in.Level,
		MaxLevel:           in.MaxLevel,
		Rarity:             rarity,
		RequiredForUpgrade: requiredForUpgrade(rarity, in.Level, in.MaxLevel),
		Icon:               in.IconURLs.Medium,
		Key:                cmp.Or(known.Key, catalog.KeyOf(in.Name)),
		Elixir:             cmp.Or(in.ElixirCost, known.Elixir),
		Type:               cmp.Or(known.Type, catalog.TypeOfID(in.ID)),
		Arena:              known.Arena,
		Description:        known.Description,
		ID:                 in.ID,
	}
}

// requiredForUpgrade is the number of cards needed for the next level, the
// string "Maxed" at the maximum level, or null when unknown.
func requiredForUpgrade(rarity string, level, maxLevel int) json.RawMessage {
	if maxLevel > 0 && level >= maxLevel {
		return json.RawMessage(`"Maxed"`)
	}
	if cost, ok := catalog.UpgradeCost(rarity, level); ok {
		return json.RawMessage(strconv.Itoa(cost))
	}
	return json.RawMessage("null")
}

// rarityOf spells an upstream rarity ("common", "COMMON") the legacy way
// ("Common"); "" when absent or unknown.
func rarityOf(upstream string) string {
	rarity, _ := matchSpelling(upstream, catalog.RarityCommon, catalog.RarityRare, catalog.RarityEpic, catalog.RarityLegendary, catalog.RarityChampion)
	return rarity
}
