package upstream_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/legacy"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

func intPointer(v int) *int { return &v }

func fixtureBattles(t *testing.T) []legacy.Battle {
	t.Helper()
	client, _ := newClient(t, fakeUpstream(t, answerFile(t, "battlelog.json")), upstream.Config{})
	battles, err := client.PlayerBattles(context.Background(), "P2Q8")
	if err != nil {
		t.Fatalf("PlayerBattles: %v", err)
	}
	if len(battles) != 5 {
		t.Fatalf("%d battles, want 5", len(battles))
	}
	return battles
}

func TestBattleHeadlines(t *testing.T) {
	battles := fixtureBattles(t)
	tests := []struct {
		name                          string
		got                           legacy.Battle
		typ, challengeType, deckType  string
		mode                          legacy.BattleMode
		teamSize, team, opponent, won int
		winCountBefore                *int
		utc                           int64
	}{
		{"ladder", battles[0], "PvP", "", "slotDeck",
			legacy.BattleMode{Name: "Ladder", Deck: "Collection", CardLevels: "Ladder", OvertimeSeconds: 60, Players: "PvP", SameDeck: true},
			1, 3, 0, 3, nil, time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC).Unix()},
		{"2v2 sides share their crowns", battles[1], "2v2", "", "slotDeck",
			legacy.BattleMode{Name: "TeamVsTeam", Deck: "Collection", CardLevels: "Ladder", OvertimeSeconds: 60, Players: "TvT"},
			2, 2, 1, 1, nil, time.Date(2024, 3, 1, 10, 15, 0, 0, time.UTC).Unix()},
		{"classic challenge", battles[2], "challenge", "classic", "slotDeck",
			legacy.BattleMode{Name: "Challenge", Deck: "Collection", CardLevels: "Tournament", OvertimeSeconds: 180, Players: "PvP"},
			1, 1, 1, 0, intPointer(4), time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC).Unix()},
		{"draft challenge in upper case", battles[3], "challenge", "unknown", "draftDeck",
			legacy.BattleMode{Name: "Draft_Competitive", Deck: "Draft", CardLevels: "Tournament", OvertimeSeconds: 180, Players: "PvP"},
			1, 0, 2, -2, intPointer(0), time.Date(2024, 3, 1, 8, 0, 0, 0, time.UTC).Unix()},
		{"unknown type kept, bad time last", battles[4], "riverRacePvP", "", "pickDeck",
			legacy.BattleMode{Name: "CW_Battle_1v1", Deck: "Pick", CardLevels: "Ladder", OvertimeSeconds: 60, Players: "PvP"},
			1, 1, 0, 1, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.got
			if b.Type != tt.typ || b.ChallengeType != tt.challengeType || b.DeckType != tt.deckType {
				t.Errorf("type %q, challengeType %q, deckType %q", b.Type, b.ChallengeType, b.DeckType)
			}
			if b.Mode != tt.mode {
				t.Errorf("mode %+v, want %+v", b.Mode, tt.mode)
			}
			if b.TeamSize != tt.teamSize || b.TeamCrowns != tt.team || b.OpponentCrowns != tt.opponent || b.Winner != tt.won {
				t.Errorf("teamSize %d, crowns %d-%d, winner %d", b.TeamSize, b.TeamCrowns, b.OpponentCrowns, b.Winner)
			}
			if (b.WinCountBefore == nil) != (tt.winCountBefore == nil) || (b.WinCountBefore != nil && *b.WinCountBefore != *tt.winCountBefore) {
				t.Errorf("winCountBefore %v, want %v", b.WinCountBefore, tt.winCountBefore)
			}
			if b.UTCTime != tt.utc {
				t.Errorf("utcTime %d, want %d", b.UTCTime, tt.utc)
			}
		})
	}
}

func TestBattleArenas(t *testing.T) {
	battles := fixtureBattles(t)
	tests := []struct {
		got, want legacy.BattleArena
	}{
		{battles[0].Arena, legacy.BattleArena{Name: "Master I", Arena: "League 4", ArenaID: 16, TrophyLimit: 4900}},
		{battles[1].Arena, legacy.BattleArena{Name: "Barbarian Bowl", Arena: "Arena 3", ArenaID: 3, TrophyLimit: 600}},
		{battles[2].Arena, legacy.BattleArena{Name: "Brand New Arena", Arena: "Brand New Arena", ArenaID: 54009999}}, // not in the catalog
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("arena %+v, want %+v", tt.got, tt.want)
		}
	}
}

func TestBattleParticipants(t *testing.T) {
	battles := fixtureBattles(t)
	ladder, duo := battles[0], battles[1]
	me := ladder.Team[0]
	if me.Tag != "P2Q8" || me.Name != "Ann" || me.CrownsEarned != 3 || *me.TrophyChange != 30 || *me.StartTrophies != 4920 || me.Clan != nil {
		t.Errorf("ladder participant %+v", me)
	}
	if want := "https://link.clashroyale.com/deck/en?deck=26000021;28000000"; me.DeckLink != want {
		t.Errorf("deckLink %q, want %q", me.DeckLink, want)
	}
	if duo.Team[0].TrophyChange != nil || duo.Team[0].StartTrophies != nil {
		t.Error("a 2v2 participant has trophies the upstream did not give")
	}
	clan := duo.Team[0].Clan
	if clan == nil || clan.Tag != "CLAN2" || clan.Name != "Two" || clan.Badge.Name != "Flame_02" || clan.Badge.Category != "01_Symbol" ||
		clan.Badge.Image != "https://cr-api.github.io/cr-api-assets/badges/Flame_02.png" {
		t.Errorf("participant clan %+v", clan)
	}
	if duo.Team[1].Clan != nil {
		t.Errorf("clanless participant has clan %+v", duo.Team[1].Clan)
	}
	if got, want := duo.Opponent[0].Clan.Badge, (legacy.Badge{Name: "Badge 16999999", Category: "Unknown", ID: 16999999,
		Image: "https://cr-api.github.io/cr-api-assets/badges/no_clan.png"}); got != want {
		t.Errorf("badge outside the catalog %+v, want %+v", got, want)
	}
	if len(duo.Team) != 2 || duo.Opponent[1].Tag != "P2QG" {
		t.Errorf("2v2 sides %+v / %+v", duo.Team, duo.Opponent)
	}
}

func TestBattleCards(t *testing.T) {
	battles := fixtureBattles(t)
	ladder, duo := battles[0], battles[1]
	tests := []struct {
		name    string
		got     legacy.Card
		want    legacy.Card
		upgrade string
	}{
		{"catalog fills a rare", ladder.Team[0].Deck[0], legacy.Card{Name: "Hog Rider", Level: 11, MaxLevel: 12, Rarity: "Rare",
			Icon: "https://icons.example/hog.png", Key: "hog-rider", Elixir: 4, Type: "Troop", Arena: 1, ID: 26000021}, "1250"},
		{"maxed", ladder.Team[0].Deck[1], legacy.Card{Name: "Fireball", Level: 12, MaxLevel: 12, Rarity: "Rare",
			Icon: "https://icons.example/fireball.png", Key: "fireball", Elixir: 4, Type: "Spell", Arena: 0, ID: 28000000}, `"Maxed"`},
		{"upstream rarity and elixir win", duo.Team[0].Deck[1], legacy.Card{Name: "Giant", Level: 9, MaxLevel: 12, Rarity: "Rare",
			Icon: "https://icons.example/giant.png", Key: "giant", Elixir: 5, Type: "Troop", Arena: 0, ID: 26000003}, "500"},
		{"level one common", duo.Team[1].Deck[0], legacy.Card{Name: "Zap", Level: 1, MaxLevel: 14, Rarity: "Common",
			Icon: "https://icons.example/zap.png", Key: "zap", Elixir: 2, Type: "Spell", Arena: 5, ID: 28000008}, "2"},
		// Today's game gives no rarity; a maximum level of 6 is a legendary's.
		// The name gives the key and the id the type, as for a listed card.
		{"card outside the catalog", duo.Opponent[1].Deck[0], legacy.Card{Name: "Brand New Card", Level: 3, MaxLevel: 6, Rarity: "Legendary",
			Icon: "https://icons.example/new.png", Key: "brand-new-card", Type: "Troop", ID: 26000998}, "6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.got
			if string(got.RequiredForUpgrade) != tt.upgrade {
				t.Errorf("requiredForUpgrade %s, want %s", got.RequiredForUpgrade, tt.upgrade)
			}
			// the catalog's cards have a description and an elixir cost, a card outside it neither
			if (got.Description != "") != (tt.want.Elixir != 0) {
				t.Errorf("description %q", got.Description)
			}
			got.RequiredForUpgrade, got.Description = nil, ""
			if !equalCards(got, tt.want) {
				t.Errorf("card %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func equalCards(a, b legacy.Card) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestBattleRendersTheLegacyJSON(t *testing.T) {
	battles := fixtureBattles(t)
	raw, err := json.Marshal(battles[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"winCountBefore":null`, `"requiredForUpgrade":"Maxed"`, `"requiredForUpgrade":1250`, `"trophyChange":30`, `"clan":null`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("battle JSON lacks %s:\n%s", want, raw)
		}
	}
	if raw, _ := json.Marshal(battles[1]); strings.Contains(string(raw), "trophyChange") || !strings.Contains(string(raw), `"rarity":"Legendary","requiredForUpgrade":6`) {
		t.Errorf("2v2 JSON: %s", raw)
	}
}

func TestBattlesAreTheNewestTwentyFive(t *testing.T) {
	var log strings.Builder
	log.WriteString("[")
	for i := range 31 {
		if i > 0 {
			log.WriteString(",")
		}
		// Hours out of order: 7, 14, 21, 28 (mod 31) ... every hour once.
		at := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i*7%31) * time.Hour)
		log.WriteString(`{"type":"PvP","battleTime":"` + at.Format("20060102T150405.000Z") + `","team":[{"tag":"#P2Q8","crowns":1,"cards":[]}],"opponent":[{"tag":"#P2Q9","crowns":0,"cards":[]}]}`)
	}
	log.WriteString("]")
	client, _ := newClient(t, fakeUpstream(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(log.String())) }), upstream.Config{})
	battles, err := client.PlayerBattles(context.Background(), "P2Q8")
	if err != nil {
		t.Fatal(err)
	}
	if len(battles) != legacy.MaxBattles {
		t.Fatalf("%d battles, want %d", len(battles), legacy.MaxBattles)
	}
	newest := time.Date(2024, 3, 1, 30, 0, 0, 0, time.UTC).Unix()
	for i, b := range battles {
		if want := newest - int64(i)*3600; b.UTCTime != want {
			t.Fatalf("battle %d at %d, want %d", i, b.UTCTime, want)
		}
	}
}

func TestClanMapping(t *testing.T) {
	client, _ := newClient(t, fakeUpstream(t, answerFile(t, "clan.json")), upstream.Config{})
	clan, err := client.Clan(context.Background(), "C2Q8")
	if err != nil {
		t.Fatal(err)
	}
	if clan.Tag != "C2Q8" || clan.Type != "invite only" || clan.Description != "Visit crowns.example" || clan.BadgeID != 16999999 ||
		clan.Score != 41000 || clan.RequiredScore != 3000 || clan.DonationsPerWeek != 1234 || clan.MemberCount != 2 || clan.Location != nil {
		t.Errorf("clan %+v", clan)
	}
	want := []models.ClanMember{
		{Tag: "P2Q8", Name: "Ann", Role: "leader", ExpLevel: 13, Trophies: 5100, ClanRank: 1, Donations: 300, DonationsReceived: 120, ClanChestPoints: 45},
		{Tag: "P2Q9", Name: "Ben", Role: "coLeader", ExpLevel: 12, Trophies: 4800, ClanRank: 2, Donations: 0, DonationsReceived: 40, ClanChestPoints: 0},
	}
	if len(clan.Members) != len(want) || clan.Members[0] != want[0] || clan.Members[1] != want[1] {
		t.Errorf("members %+v\nwant %+v", clan.Members, want)
	}
}

func TestTournamentMapping(t *testing.T) {
	client, _ := newClient(t, fakeUpstream(t, answerFile(t, "tournament.json")), upstream.Config{})
	tour, err := client.Tournament(context.Background(), "T2Q8")
	if err != nil {
		t.Fatal(err)
	}
	at := func(hour int) time.Time { return time.Date(2024, 3, 3, hour, 0, 0, 0, time.UTC) }
	if tour.Tag != "T2Q8" || tour.Type != "passwordProtected" || tour.Status != "ended" || tour.CreatorTag != "P2Q8" ||
		tour.Capacity != 2 || tour.MaxCapacity != 50 || tour.PreparationDuration != 3600 || tour.Duration != 7200 ||
		!tour.CreatedTime.Equal(at(10)) || !tour.StartedTime.Equal(at(11)) || !tour.EndedTime.Equal(at(13)) ||
		tour.EndedTimeRaw != "20240303T130000.000Z" {
		t.Errorf("tournament %+v", tour)
	}
	want := []models.TournamentMember{{Tag: "P2Q8", Name: "Ann", Score: 12, Rank: 1}, {Tag: "P2Q9", Name: "Ben", Score: 7, Rank: 2}}
	if len(tour.Members) != 2 || tour.Members[0] != want[0] || tour.Members[1] != want[1] {
		t.Errorf("members %+v", tour.Members)
	}
}

func TestSearchSendsTheFiltersAndReturnsCursors(t *testing.T) {
	tests := []struct {
		query legacy.ClanSearchQuery
		want  string
	}{
		{legacy.ClanSearchQuery{Name: "royal", MinScore: -1, Limit: 50}, "limit=50&name=royal"},
		{legacy.ClanSearchQuery{MinScore: 0, LocationID: 57000016, MinMembers: 10, MaxMembers: 40, Limit: 5, After: "eyJwb3MiOjV9"},
			"after=eyJwb3MiOjV9&limit=5&locationId=57000016&maxMembers=40&minMembers=10&minScore=0"},
		{legacy.ClanSearchQuery{Name: "a b&c", MinScore: 1200, Before: "eyJwb3MiOjV9"}, "before=eyJwb3MiOjV9&minScore=1200&name=a+b%26c"},
	}
	for _, tt := range tests {
		var sent string
		base := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
			sent = r.URL.Path + "?" + r.URL.RawQuery
			_, _ = w.Write([]byte(`{"items":[{"tag":"#C2Q8","name":"x","type":"open","badgeId":16000000,"clanScore":5,"members":3,
				"requiredTrophies":100,"donationsPerWeek":7,"location":{"id":57000000,"name":"Europe","isCountry":false}}],
				"paging":{"cursors":{"after":"A1","before":"B1"}}}`))
		})
		client, _ := newClient(t, base, upstream.Config{})
		page, err := client.SearchClans(context.Background(), tt.query)
		if err != nil {
			t.Fatal(err)
		}
		if want := "/v1/clans?" + tt.want; sent != want {
			t.Errorf("sent %s, want %s", sent, want)
		}
		want := legacy.ClanSearchResult{Tag: "C2Q8", Name: "x", Type: "open", Score: 5, MemberCount: 3, RequiredScore: 100, Donations: 7,
			Badge:    legacy.Badge{Name: "Flame_01", Category: "01_Symbol", ID: 16000000, Image: "https://cr-api.github.io/cr-api-assets/badges/Flame_01.png"},
			Location: &models.Location{Name: "Europe", Code: "_EU"}}
		if page.After != "A1" || page.Before != "B1" || len(page.Items) != 1 || page.Items[0].Location == nil ||
			*page.Items[0].Location != *want.Location || page.Items[0].Badge != want.Badge {
			t.Errorf("page %+v", page)
		}
		got := page.Items[0]
		got.Location, want.Location = nil, nil
		if got != want {
			t.Errorf("result %+v\nwant %+v", got, want)
		}
	}
}

func TestEmptySearchIsAnEmptyList(t *testing.T) {
	client, _ := newClient(t, fakeUpstream(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"items":[],"paging":{"cursors":{}}}`))
	}), upstream.Config{})
	page, err := client.SearchClans(context.Background(), legacy.ClanSearchQuery{Name: "zzzz", MinScore: -1})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(page.Items); string(raw) != "[]" || page.After != "" || page.Before != "" {
		t.Errorf("items %s, cursors %q %q", raw, page.After, page.Before)
	}
}
