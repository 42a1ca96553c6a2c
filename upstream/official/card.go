package official

// Item is a card of /cards. Rarity ("common", "rare", ...) and ElixirCost
// are absent from older answers.
type Item struct {
	Name       string   `json:"name"`
	ID         int      `json:"id"`
	MaxLevel   int      `json:"maxLevel"`
	Rarity     string   `json:"rarity,omitempty"`
	ElixirCost int      `json:"elixirCost,omitempty"`
	IconURLs   IconURLs `json:"iconUrls"`
}

// CardLevel is a card in a battle deck, at the level it was played.
type CardLevel struct {
	Item
	Level     int `json:"level"`
	StarLevel int `json:"starLevel,omitempty"`
}

// IconURLs are the pictures of a card.
type IconURLs struct {
	Medium string `json:"medium,omitempty"`
}
