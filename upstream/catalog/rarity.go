package catalog

// Card rarities, spelled as the legacy API spells them.
const (
	RarityCommon    = "Common"
	RarityRare      = "Rare"
	RarityEpic      = "Epic"
	RarityLegendary = "Legendary"
	RarityChampion  = "Champion"
)

// rarityRule is the level scale of one rarity: its maximum level and the
// cards needed to go from level n to n+1 at upgradeCost[n-1].
type rarityRule struct {
	maxLevel    int
	upgradeCost []int
}

// rarityRules is the project's table of the game's per-rarity level scale,
// as the official API reports levels (each rarity counted from 1).
var rarityRules = map[string]rarityRule{
	RarityCommon:    {maxLevel: 14, upgradeCost: []int{2, 4, 10, 20, 50, 100, 200, 400, 800, 1000, 1500, 3000, 5000}},
	RarityRare:      {maxLevel: 12, upgradeCost: []int{2, 4, 10, 20, 50, 100, 200, 400, 500, 750, 1250}},
	RarityEpic:      {maxLevel: 9, upgradeCost: []int{2, 4, 10, 20, 40, 50, 100, 200}},
	RarityLegendary: {maxLevel: 6, upgradeCost: []int{2, 4, 6, 10, 20}},
	RarityChampion:  {maxLevel: 4, upgradeCost: []int{2, 8, 20}},
}

// MaxLevel is the highest level of a card of that rarity; 0 for a rarity
// the catalog does not know.
func MaxLevel(rarity string) int { return rarityRules[rarity].maxLevel }

// UpgradeCost is how many cards a card of that rarity at level needs to
// reach the next level. ok is false at or beyond the maximum level, below
// level 1, and for an unknown rarity.
func UpgradeCost(rarity string, level int) (cost int, ok bool) {
	rule := rarityRules[rarity]
	if level < 1 || level > len(rule.upgradeCost) {
		return 0, false
	}
	return rule.upgradeCost[level-1], true
}

// RarityOfMaxLevel is the rarity whose cards reach maxLevel, as the game
// API reports levels (each rarity has its own maximum); "" for a maximum
// no rarity has. The game's card list of today gives a card's maximum
// level but not its rarity.
func RarityOfMaxLevel(maxLevel int) string {
	for rarity, rule := range rarityRules {
		if rule.maxLevel == maxLevel {
			return rarity
		}
	}
	return ""
}
