package catalog_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/upstream/catalog"
)

func load(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Load()
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestCardsCoverTheGame(t *testing.T) {
	c := load(t)
	cards := c.Cards()
	if len(cards) < 100 {
		t.Fatalf("catalog has %d cards, want at least 100", len(cards))
	}
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	wantType := map[int]string{26: catalog.TypeTroop, 27: catalog.TypeBuilding, 28: catalog.TypeSpell}
	keys := map[string]bool{}
	for _, card := range cards {
		if want := wantType[card.ID/1_000_000]; card.Type != want {
			t.Errorf("card %d %s: type %q, want %q by its id range", card.ID, card.Name, card.Type, want)
		}
		if !kebab.MatchString(card.Key) || keys[card.Key] {
			t.Errorf("card %d: key %q is not a unique kebab-case key", card.ID, card.Key)
		}
		keys[card.Key] = true
		if card.Name == "" || card.Description == "" || card.Elixir < 1 || card.Elixir > 9 {
			t.Errorf("card %d: incomplete entry %+v", card.ID, card)
		}
		if catalog.MaxLevel(card.Rarity) == 0 {
			t.Errorf("card %d: unknown rarity %q", card.ID, card.Rarity)
		}
	}
}

func TestLookups(t *testing.T) {
	c := load(t)
	tests := []struct {
		name   string
		found  bool
		lookup func() (string, bool)
	}{
		{"known card", true, func() (string, bool) { card, ok := c.Card(26000021); return card.Name, ok }},
		{"unknown card", false, func() (string, bool) { card, ok := c.Card(26999999); return card.Name, ok }},
		{"known badge", true, func() (string, bool) { b, ok := c.Badge(16000000); return b.Name, ok }},
		{"unknown badge", false, func() (string, bool) { b, ok := c.Badge(15000000); return b.Name, ok }},
		{"known arena", true, func() (string, bool) { a, ok := c.Arena(54000015); return a.Name, ok }},
		{"unknown arena", false, func() (string, bool) { a, ok := c.Arena(54999999); return a.Name, ok }},
		{"known location", true, func() (string, bool) { l, ok := c.Location(57000000); return l.Name, ok }},
		{"unknown location", false, func() (string, bool) { l, ok := c.Location(1); return l.Name, ok }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, ok := tt.lookup()
			if ok != tt.found || (name != "") != tt.found {
				t.Fatalf("got (%q, %v), want found=%v", name, ok, tt.found)
			}
		})
	}
}

func TestBadges(t *testing.T) {
	c := load(t)
	categories := map[string]bool{"01_Symbol": true, "02_Flag": true, "03_Royale": true}
	for _, b := range c.Badges() {
		if b.ID < 16000000 || !categories[b.Category] || b.Name == "" {
			t.Errorf("badge %+v: bad id, category or name", b)
		}
		if want := "https://cr-api.github.io/cr-api-assets/badges/" + b.Name + ".png"; b.Image() != want {
			t.Errorf("badge %d image %q, want %q", b.ID, b.Image(), want)
		}
	}
}

func TestArenas(t *testing.T) {
	c := load(t)
	for _, a := range c.Arenas() {
		if a.ID != 54000000+a.Number-1 {
			t.Errorf("arena %s: id %d does not match number %d", a.Name, a.ID, a.Number)
		}
		if !strings.HasPrefix(a.Label, "Arena ") && !strings.HasPrefix(a.Label, "League ") {
			t.Errorf("arena %s: label %q", a.Name, a.Label)
		}
	}
	tests := []struct {
		trophies int
		want     string
	}{
		{0, "Goblin Stadium"},
		{-5, "Goblin Stadium"},
		{4899, "Challenger III"},
		{4900, "Master I"},
		{99999, "Ultimate Champion"},
	}
	for _, tt := range tests {
		if got := c.ArenaForTrophies(tt.trophies).Name; got != tt.want {
			t.Errorf("ArenaForTrophies(%d) = %q, want %q", tt.trophies, got, tt.want)
		}
	}
}

func TestLocations(t *testing.T) {
	c := load(t)
	var regions, countries int
	for _, l := range c.Locations() {
		switch {
		case l.IsCountry && len(l.CountryCode) == 2:
			countries++
		case !l.IsCountry && l.CountryCode == "" && strings.HasPrefix(l.RegionCode, "_"):
			regions++
		default:
			t.Errorf("location %+v: country flag and code disagree", l)
		}
	}
	if regions < 5 || countries < 40 {
		t.Fatalf("%d regions and %d countries, want a real spread", regions, countries)
	}
}

func TestUpgradeCost(t *testing.T) {
	tests := []struct {
		rarity string
		level  int
		want   int
		ok     bool
	}{
		{catalog.RarityCommon, 1, 2, true},
		{catalog.RarityCommon, 13, 5000, true},
		{catalog.RarityCommon, 14, 0, false},
		{catalog.RarityRare, 11, 1250, true},
		{catalog.RarityEpic, 8, 200, true},
		{catalog.RarityEpic, 9, 0, false},
		{catalog.RarityLegendary, 5, 20, true},
		{catalog.RarityChampion, 3, 20, true},
		{catalog.RarityChampion, 0, 0, false},
		{"Mythic", 1, 0, false},
	}
	for _, tt := range tests {
		got, ok := catalog.UpgradeCost(tt.rarity, tt.level)
		if got != tt.want || ok != tt.ok {
			t.Errorf("UpgradeCost(%s, %d) = (%d, %v), want (%d, %v)", tt.rarity, tt.level, got, ok, tt.want, tt.ok)
		}
	}
	for rarity, max := range map[string]int{catalog.RarityCommon: 14, catalog.RarityRare: 12, catalog.RarityEpic: 9, catalog.RarityLegendary: 6, catalog.RarityChampion: 4} {
		if got := catalog.MaxLevel(rarity); got != max {
			t.Errorf("MaxLevel(%s) = %d, want %d", rarity, got, max)
		}
		if _, ok := catalog.UpgradeCost(rarity, max-1); !ok {
			t.Errorf("UpgradeCost(%s, %d) missing: the table must reach the level below the maximum", rarity, max-1)
		}
		if got := catalog.RarityOfMaxLevel(max); got != rarity {
			t.Errorf("RarityOfMaxLevel(%d) = %q, want %q", max, got, rarity)
		}
	}
	for _, max := range []int{0, 7, 13, 16} {
		if got := catalog.RarityOfMaxLevel(max); got != "" {
			t.Errorf("RarityOfMaxLevel(%d) = %q, want none", max, got)
		}
	}
}

// TestCountriesCarryTheGameIDs checks that built-in countries are numbered
// as the game API numbers them (its /locations list), so that a
// locationId taken from the game's documentation means the same country in
// the sandbox and in answers mapped without a fetched location list.
func TestCountriesCarryTheGameIDs(t *testing.T) {
	c := load(t)
	tests := []struct {
		id   int
		name string
		code string
	}{
		{57000017, "Argentina", "AR"},
		{57000038, "Brazil", "BR"},
		{57000087, "France", "FR"},
		{57000094, "Germany", "DE"},
		{57000122, "Japan", "JP"},
		{57000248, "United Kingdom", "GB"},
		{57000249, "United States", "US"},
		{57000255, "Vietnam", "VN"},
	}
	for _, tt := range tests {
		l, ok := c.Location(tt.id)
		if !ok || l.Name != tt.name || !l.IsCountry || l.Code() != tt.code {
			t.Errorf("Location(%d) = %+v, %v; want the country %s (%s)", tt.id, l, ok, tt.name, tt.code)
		}
	}
}
