package catalog_test

import (
	"testing"

	"github.com/crownsdev/crowns/upstream/catalog"
)

func TestMerge(t *testing.T) {
	builtIn := load(t)
	knight, _ := builtIn.Card(26000000)
	merged := builtIn.Merge(
		[]catalog.Card{
			{ID: 26000000, Name: "Knight (renamed)", Key: "knight-renamed", Type: catalog.TypeSpell, Rarity: catalog.RarityRare},
			{ID: 26000095, Name: "Goblin Machine", Key: "goblin-machine", Type: catalog.TypeTroop, Elixir: 5},
		},
		[]catalog.Location{
			{ID: 57000006, Name: "International"},
			{ID: 57000999, Name: "Antarctica"},
		})
	tests := []struct {
		name      string
		got, want any
	}{
		{"a listed card takes the listing's name and rarity and keeps the rest",
			entry(merged.Card(26000000)),
			catalog.Card{ID: 26000000, Key: "knight", Name: "Knight (renamed)", Elixir: knight.Elixir, Type: knight.Type, Rarity: catalog.RarityRare, Arena: knight.Arena, Description: knight.Description}},
		{"a new card is added as listed", entry(merged.Card(26000095)),
			catalog.Card{ID: 26000095, Key: "goblin-machine", Name: "Goblin Machine", Elixir: 5, Type: catalog.TypeTroop}},
		{"an unlisted card stays", entry(merged.Card(28000008)).(catalog.Card).Name, "Zap"},
		{"a listed region keeps its legacy code", entry(merged.Location(57000006)).(catalog.Location).Code(), "_INT"},
		{"a new region gets a derived code", entry(merged.Location(57000999)).(catalog.Location).Code(), "_AN"},
		{"the built-in catalog is unchanged", entry(builtIn.Card(26000000)), knight},
		{"a new card is missing from the built-in catalog", func() bool { _, ok := builtIn.Card(26000095); return ok }(), false},
		{"cards stay ordered by id", merged.Cards()[len(merged.Cards())-1].ID > merged.Cards()[0].ID, true},
		{"badges are the built-in ones", len(merged.Badges()), len(builtIn.Badges())},
		{"nil lists change nothing", len(builtIn.Merge(nil, nil).Cards()), len(builtIn.Cards())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %+v, want %+v", tt.got, tt.want)
			}
		})
	}
}

// entry is the entry of a lookup; a missing one is its zero value, which
// no want of these tests equals.
func entry[T any](e T, _ bool) any { return e }

func TestLocationCode(t *testing.T) {
	tests := []struct {
		location catalog.Location
		want     string
	}{
		{catalog.Location{Name: "France", IsCountry: true, CountryCode: "FR"}, "FR"},
		{catalog.Location{Name: "Oceania", RegionCode: "_AU"}, "_AU"},
		{catalog.Location{Name: "North America"}, "_NA"},
		{catalog.Location{Name: "Antarctica"}, "_AN"},
		{catalog.Location{Name: "É"}, "_É"},
		{catalog.Location{Name: "--"}, ""},
	}
	for _, tt := range tests {
		if got := tt.location.Code(); got != tt.want {
			t.Errorf("%+v: code %q, want %q", tt.location, got, tt.want)
		}
	}
	c := load(t)
	for id, want := range map[int]string{57000000: "_EU", 57000001: "_NA", 57000002: "_SA", 57000003: "_AS", 57000004: "_AU", 57000005: "_AF", 57000006: "_INT"} {
		if l, _ := c.Location(id); l.Code() != want {
			t.Errorf("region %d code %q, want %q", id, l.Code(), want)
		}
	}
}

func TestBadgeRange(t *testing.T) {
	c := load(t)
	for id := 16000000; id <= 16000179; id++ {
		if _, ok := c.Badge(id); !ok {
			t.Errorf("badge %d missing: the table must cover every id the game uses", id)
		}
	}
	unknown := catalog.UnknownBadge(16000400)
	if unknown.Name != "Badge 16000400" || unknown.Category != catalog.UnknownBadgeCategory || unknown.Image() != catalog.UnknownBadgeImage {
		t.Errorf("unknown badge %+v, image %q", unknown, unknown.Image())
	}
}

func TestCardNaming(t *testing.T) {
	tests := []struct {
		name, key string
		id        int
		typ       string
	}{
		{"Mini P.E.K.K.A", "mini-pekka", 26000018, catalog.TypeTroop},
		{"X-Bow", "x-bow", 27000008, catalog.TypeBuilding},
		{"Royal Delivery", "royal-delivery", 28000018, catalog.TypeSpell},
		{"Tower Princess", "tower-princess", 159000000, ""},
	}
	for _, tt := range tests {
		if got := catalog.KeyOf(tt.name); got != tt.key {
			t.Errorf("KeyOf(%q) = %q, want %q", tt.name, got, tt.key)
		}
		if got := catalog.TypeOfID(tt.id); got != tt.typ {
			t.Errorf("TypeOfID(%d) = %q, want %q", tt.id, got, tt.typ)
		}
	}
}
