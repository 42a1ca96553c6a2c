package upstream_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/crownsdev/crowns/models/legacy"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

// The fixtures *_current.json are shaped like the game API's answers of
// today: arenas, badges and regions the built-in catalog did not know.

func TestCurrentBattleArenas(t *testing.T) {
	client, _ := newClient(t, fakeUpstream(t, answerFile(t, "battlelog_current.json")), upstream.Config{})
	battles, err := client.PlayerBattles(context.Background(), "P2Q8")
	if err != nil || len(battles) != 3 {
		t.Fatalf("PlayerBattles: %d battles, %v", len(battles), err)
	}
	tests := []struct {
		name string
		got  legacy.BattleArena
		want legacy.BattleArena
	}{
		{"a season arena the catalog lacks keeps the game's id and name", battles[0].Arena,
			legacy.BattleArena{Name: "Arena 5", Arena: "Arena 5", ArenaID: 54000060}},
		{"an arena under a name the catalog has at another id", battles[1].Arena,
			legacy.BattleArena{Name: "Legendary Arena", Arena: "Legendary Arena", ArenaID: 54000046}},
		{"an arena without a name is named after its id", battles[2].Arena,
			legacy.BattleArena{Name: "Arena 54000099", Arena: "Arena 54000099", ArenaID: 54000099}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("arena %+v, want %+v", tt.got, tt.want)
			}
		})
	}
}

func TestCurrentBattleBadges(t *testing.T) {
	client, _ := newClient(t, fakeUpstream(t, answerFile(t, "battlelog_current.json")), upstream.Config{})
	battles, err := client.PlayerBattles(context.Background(), "P2Q8")
	if err != nil || len(battles) != 3 {
		t.Fatalf("PlayerBattles: %d battles, %v", len(battles), err)
	}
	tests := []struct {
		name string
		got  *legacy.ParticipantClan
		want legacy.Badge
	}{
		{"badge 16000177", battles[0].Team[0].Clan, badge(16000177, "A_Char_Prince_03", "03_Royale")},
		{"badge 16000165", battles[0].Opponent[0].Clan, badge(16000165, "A_Char_Hammer_02", "03_Royale")},
		{"badge beyond the table", battles[1].Opponent[0].Clan, unknownBadge(16000400)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got == nil || tt.got.Badge != tt.want {
				t.Errorf("clan %+v, want badge %+v", tt.got, tt.want)
			}
		})
	}
}

func TestCurrentClanSearch(t *testing.T) {
	client, _ := newClient(t, fakeUpstream(t, answerFile(t, "clans_current.json")), upstream.Config{})
	page, err := client.SearchClans(context.Background(), legacy.ClanSearchQuery{Name: "puzzle", MinScore: -1})
	if err != nil || len(page.Items) != 5 {
		t.Fatalf("SearchClans: %d results, %v", len(page.Items), err)
	}
	tests := []struct {
		name     string
		got      legacy.ClanSearchResult
		badge    legacy.Badge
		location models.Location
	}{
		{"international", page.Items[0], badge(16000115, "Tower_04", "03_Royale"),
			models.Location{Name: "International", Code: "_INT"}},
		{"europe", page.Items[1], badge(16000144, "A_Char_King_01", "03_Royale"),
			models.Location{Name: "Europe", Code: "_EU"}},
		{"oceania keeps the legacy code", page.Items[2], badge(16000179, "A_Char_Bomb_02", "03_Royale"),
			models.Location{Name: "Oceania", Code: "_AU"}},
		{"a region and a badge the catalog lacks", page.Items[3], unknownBadge(16000400),
			models.Location{Name: "Antarctica", Code: "_AN"}},
		{"a country", page.Items[4], badge(16000173, "flag_e_02", "02_Flag"),
			models.Location{Name: "France", IsCountry: true, Code: "FR"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got.Badge != tt.badge {
				t.Errorf("badge %+v, want %+v", tt.got.Badge, tt.badge)
			}
			if tt.got.Location == nil || *tt.got.Location != tt.location {
				t.Errorf("location %+v, want %+v", tt.got.Location, tt.location)
			}
		})
	}
}

func badge(id int, name, category string) legacy.Badge {
	return legacy.Badge{Name: name, Category: category, ID: id, Image: "https://cr-api.github.io/cr-api-assets/badges/" + name + ".png"}
}

func unknownBadge(id int) legacy.Badge {
	return legacy.Badge{Name: "Badge " + strconv.Itoa(id), Category: "Unknown", ID: id, Image: "https://cr-api.github.io/cr-api-assets/badges/no_clan.png"}
}
