package upstream_test

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"testing"
	"time"

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

// TestCurrentClanSnapshot takes a snapshot of a clan answered as the game
// answers today: the history's donations are the clan's donations of the
// week (which count members who have left since, so they exceed the
// listed members' sum), as the legacy history's were.
func TestCurrentClanSnapshot(t *testing.T) {
	client, _ := newClient(t, fakeUpstream(t, answerFile(t, "clan_current.json")), upstream.Config{})
	clan, err := client.Clan(context.Background(), "Y2PQ0GC")
	if err != nil {
		t.Fatalf("Clan: %v", err)
	}
	slot := time.Date(2024, 3, 1, 8, 0, 0, 0, time.UTC)
	got := models.SnapshotOf(clan, slot)
	want := models.HistorySnapshot{Slot: slot, Donations: 2210, MemberCount: 3, Score: 38120, Members: []models.HistoryMember{
		{ClanRank: 1, Crowns: 0, Donations: 246, Name: "Änna", Tag: "2PYQ8RLU", Trophies: 6089},
		{ClanRank: 2, Crowns: 0, Donations: 90, Name: "kapa", Tag: "8CGYQ2L9", Trophies: 5651},
		{ClanRank: 3, Crowns: 0, Donations: 364, Name: "mika 🍻", Tag: "Q0UCG9C2", Trophies: 5501},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("snapshot\n got %+v\nwant %+v", got, want)
	}
}

// TestSnapshotDonationsWithoutWeeklyFigure: a clan answer without the
// week's figure keeps the listed members' sum.
func TestSnapshotDonationsWithoutWeeklyFigure(t *testing.T) {
	clan := models.ClanDetails{Tag: "Y2PQ0GC", Members: []models.ClanMember{
		{Tag: "2PYQ8RLU", ClanRank: 1, Donations: 246}, {Tag: "8CGYQ2L9", ClanRank: 2, Donations: 90},
	}}
	if got := models.SnapshotOf(clan, time.Time{}).Donations; got != 336 {
		t.Fatalf("donations = %d, want the members' sum 336", got)
	}
}

// TestRenumberedArenasKeepTheGamesNames: the game has renumbered its
// arenas since the catalog's ids were taken; an id whose name today is
// neither the catalog's name nor its label for that id is the game's
// arena, not the catalog's.
func TestRenumberedArenasKeepTheGamesNames(t *testing.T) {
	battle := func(id int, name string) string {
		return `{"type": "boatBattle", "battleTime": "20250610T160000.000Z", "arena": {"id": ` + strconv.Itoa(id) + `, "name": "` + name +
			`"}, "gameMode": {"id": 72000268}, "team": [{"tag": "#P2Q8", "crowns": 0, "cards": []}], "opponent": [{"tag": "#P2QV", "crowns": 0, "cards": []}]}`
	}
	body := "[" + battle(54000001, "Arena 1") + "," + battle(54000012, "Legendary Arena") + "," +
		battle(54000011, "Arena 12") + "," + battle(54000013, "challenger ii") + "]"
	client, _ := newClient(t, fakeUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}), upstream.Config{})
	battles, err := client.PlayerBattles(context.Background(), "P2Q8")
	if err != nil || len(battles) != 4 {
		t.Fatalf("PlayerBattles: %d battles, %v", len(battles), err)
	}
	want := []legacy.BattleArena{
		{Name: "Arena 1", Arena: "Arena 1", ArenaID: 54000001},                 // the catalog's Bone Pit
		{Name: "Legendary Arena", Arena: "Legendary Arena", ArenaID: 54000012}, // the catalog's Challenger I
		{Name: "Legendary Arena", Arena: "Arena 12", ArenaID: 12, TrophyLimit: 3800},
		{Name: "Challenger II", Arena: "League 2", ArenaID: 14, TrophyLimit: 4300},
	}
	for i, w := range want {
		if battles[i].Arena != w {
			t.Errorf("battle %d: arena %+v, want %+v", i, battles[i].Arena, w)
		}
	}
}
