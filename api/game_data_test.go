package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
)

// The files of testdata/game are shaped like the official game API's
// answers (trimmed, with invented names and tags): a battle log of a
// ladder battle, a challenge, a 2v2 and a boat battle, a clan search, a
// clan with its member list, and a tournament (and two whose status or
// type the game does not name: see tournament_unknown_values_test.go).
// These tests serve them as the upstream and read every field of the
// legacy answers Crowns makes of them: each is there, of the legacy
// answer's JSON type, and carries what the game's data says, not an empty
// or zero value.

// gameDataUpstream answers the official API's paths with testdata/game.
func gameDataUpstream(t *testing.T) http.Handler {
	t.Helper()
	files := map[string]string{
		"/v1/players/#2PYQ8RL/battlelog": "battlelog.json",
		"/v1/clans":                      "clans.json",
		"/v1/clans/#RP9QQG":              "clan.json",
		"/v1/tournaments/#U2QQQL":        "tournament.json",
		"/v1/tournaments/#2QQRL0":        "tournament_unknown_status.json",
		"/v1/tournaments/#2QQRL2":        "tournament_unknown_type.json",
	}
	bodies := map[string][]byte{}
	for path, name := range files {
		body, err := os.ReadFile(filepath.Join("testdata", "game", name))
		if err != nil {
			t.Fatal(err)
		}
		bodies[path] = body
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, _ := url.PathUnescape(r.URL.EscapedPath())
		w.Header().Set("Content-Type", "application/json")
		body, ok := bodies[path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"reason":"notFound","message":"Not found"}`))
			return
		}
		_, _ = w.Write(body)
	})
}

// fieldWant is what one field of an answer must be: its JSON type and,
// when set, its value (compared as JSON). absent wants the field left out.
type fieldWant struct {
	path   string
	kind   string
	value  string
	absent bool
}

// checkFields reads each path of answer (dotted, array indexes as
// numbers) and checks it against its want.
func checkFields(t *testing.T, answer any, wants []fieldWant) {
	t.Helper()
	for _, w := range wants {
		got, ok := fieldAt(answer, w.path)
		switch {
		case w.absent:
			if ok {
				t.Errorf("%s = %s, want the field left out", w.path, jsonText(got))
			}
			continue
		case !ok:
			t.Errorf("%s missing", w.path)
			continue
		}
		if kind := jsonKind(got); kind != w.kind {
			t.Errorf("%s is a %s (%s), want a %s", w.path, kind, jsonText(got), w.kind)
			continue
		}
		if w.value != "" && jsonText(got) != w.value {
			t.Errorf("%s = %s, want %s", w.path, jsonText(got), w.value)
		}
		if w.value == "" && w.kind != "null" && isEmptyJSON(got) {
			t.Errorf("%s = %s, want what the game's data says", w.path, jsonText(got))
		}
	}
}

func fieldAt(v any, path string) (any, bool) {
	for _, part := range strings.Split(path, ".") {
		switch node := v.(type) {
		case map[string]any:
			next, ok := node[part]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			v = node[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}

func isEmptyJSON(v any) bool {
	switch v := v.(type) {
	case string:
		return v == ""
	case float64:
		return v == 0
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return v == nil
}

func jsonText(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// getJSON answers path with key and decodes its 200 answer.
func getJSON(t *testing.T, h *harness, key, path string) any {
	t.Helper()
	resp := h.get(path, "auth", key)
	raw := readBody(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, body %s", path, resp.StatusCode, raw)
	}
	var answer any
	if err := json.Unmarshal(raw, &answer); err != nil {
		t.Fatalf("GET %s: %v in %s", path, err, raw)
	}
	return answer
}

func quoted(s string) string { return strconv.Quote(s) }

func unixAt(year int, month time.Month, day, hour, minute, second int) string {
	return strconv.FormatInt(time.Date(year, month, day, hour, minute, second, 0, time.UTC).Unix(), 10)
}

// cardWants are the fields of a deck card: the game's facts as given, and
// the catalog's (key, type, rarity, description) known or derived.
func cardWants(prefix string, id, level, maxLevel int, name, icon, rarity, key, cardType string) []fieldWant {
	p := func(field string) string { return prefix + "." + field }
	return []fieldWant{
		{path: p("name"), kind: "string", value: quoted(name)},
		{path: p("id"), kind: "number", value: strconv.Itoa(id)},
		{path: p("level"), kind: "number", value: strconv.Itoa(level)},
		{path: p("maxLevel"), kind: "number", value: strconv.Itoa(maxLevel)},
		{path: p("icon"), kind: "string", value: quoted(icon)},
		{path: p("rarity"), kind: "string", value: quoted(rarity)},
		{path: p("key"), kind: "string", value: quoted(key)},
		{path: p("type"), kind: "string", value: quoted(cardType)},
		{path: p("elixir"), kind: "number"},
	}
}

// clanWants are the fields of a battle participant's clan.
func clanWants(prefix, tag, name string, badgeID int) []fieldWant {
	p := func(field string) string { return prefix + "." + field }
	return []fieldWant{
		{path: p("tag"), kind: "string", value: quoted(tag)},
		{path: p("name"), kind: "string", value: quoted(name)},
		{path: p("badge.id"), kind: "number", value: strconv.Itoa(badgeID)},
		{path: p("badge.name"), kind: "string"},
		{path: p("badge.category"), kind: "string"},
		{path: p("badge.image"), kind: "string"},
	}
}

func TestBattlesOfTheGamesData(t *testing.T) {
	h := newHarness(t, harnessOptions{upstream: gameDataUpstream(t)})
	battles := getJSON(t, h, h.issue("7001"), "/player/2PYQ8RL/battles")
	if list, _ := battles.([]any); len(list) != 4 {
		t.Fatalf("%d battles, want the log's 4: %s", len(list), jsonText(battles))
	}
	const deckLink = "https://link.clashroyale.com/deck/en?deck="
	wants := []fieldWant{
		// A ladder battle: trophies, their change, a clan and one without.
		{path: "0.type", kind: "string", value: `"PvP"`},
		{path: "0.utcTime", kind: "number", value: unixAt(2026, 11, 2, 9, 15, 12)},
		{path: "0.mode.name", kind: "string", value: `"Ladder"`},
		{path: "0.mode.deck", kind: "string", value: `"Collection"`},
		{path: "0.mode.cardLevels", kind: "string", value: `"Ladder"`},
		{path: "0.mode.overtimeSeconds", kind: "number"},
		{path: "0.mode.players", kind: "string", value: `"PvP"`},
		{path: "0.mode.sameDeck", kind: "boolean", value: "false"},
		{path: "0.deckType", kind: "string", value: `"slotDeck"`},
		{path: "0.teamSize", kind: "number", value: "1"},
		{path: "0.winCountBefore", kind: "null"},
		{path: "0.challengeType", absent: true},
		{path: "0.teamCrowns", kind: "number", value: "2"},
		{path: "0.opponentCrowns", kind: "number", value: "1"},
		{path: "0.winner", kind: "number", value: "1"},
		{path: "0.arena.name", kind: "string", value: `"Arena 5"`},
		{path: "0.arena.arena", kind: "string", value: `"Arena 5"`},
		{path: "0.arena.arenaID", kind: "number", value: "54000060"},
		{path: "0.arena.trophyLimit", kind: "number", value: "0"}, // the game gives none, the catalog lacks the arena
		{path: "0.team.0.tag", kind: "string", value: `"2PYQ8RL"`},
		{path: "0.team.0.name", kind: "string", value: `"Oriel"`},
		{path: "0.team.0.crownsEarned", kind: "number", value: "2"},
		{path: "0.team.0.startTrophies", kind: "number", value: "5493"},
		{path: "0.team.0.trophyChange", kind: "number", value: "30"},
		{path: "0.team.0.deckLink", kind: "string", value: quoted(deckLink + "28000003;26000016")},
		{path: "0.team.0.deck.0.requiredForUpgrade", kind: "string", value: `"Maxed"`},
		{path: "0.team.0.deck.1.requiredForUpgrade", kind: "number"},
		{path: "0.team.0.deck.0.description", kind: "string"},
		{path: "0.opponent.0.tag", kind: "string", value: `"8CGYQ2L"`},
		{path: "0.opponent.0.clan", kind: "null"},
		{path: "0.opponent.0.crownsEarned", kind: "number", value: "1"},
		{path: "0.opponent.0.startTrophies", kind: "number", value: "5510"},
		{path: "0.opponent.0.trophyChange", kind: "number", value: "-30"},
		{path: "0.opponent.0.deckLink", kind: "string", value: quoted(deckLink + "26000998;26000000")},
		{path: "0.opponent.0.deck.0.requiredForUpgrade", kind: "number"},

		// A classic challenge: its win count, no trophy change.
		{path: "1.type", kind: "string", value: `"challenge"`},
		{path: "1.challengeType", kind: "string", value: `"classic"`},
		{path: "1.winCountBefore", kind: "number", value: "4"},
		{path: "1.mode.cardLevels", kind: "string", value: `"Tournament"`},
		{path: "1.arena.name", kind: "string", value: `"Legendary Arena"`},
		{path: "1.arena.arenaID", kind: "number", value: "54000046"},
		{path: "1.teamCrowns", kind: "number", value: "3"},
		{path: "1.opponentCrowns", kind: "number", value: "0"},
		{path: "1.winner", kind: "number", value: "3"},
		{path: "1.team.0.startTrophies", kind: "number", value: "5493"},
		{path: "1.team.0.trophyChange", absent: true},
		{path: "1.opponent.0.startTrophies", kind: "number", value: "6001"},

		// A 2v2: two a side, the side's crowns, no trophies.
		{path: "2.type", kind: "string", value: `"2v2"`},
		{path: "2.teamSize", kind: "number", value: "2"},
		{path: "2.mode.players", kind: "string", value: `"TvT"`},
		{path: "2.teamCrowns", kind: "number", value: "1"},
		{path: "2.opponentCrowns", kind: "number", value: "2"},
		{path: "2.winner", kind: "number", value: "-1"},
		{path: "2.team.1.tag", kind: "string", value: `"9YRUG0P"`},
		{path: "2.team.1.clan", kind: "null"},
		{path: "2.team.1.startTrophies", absent: true},
		{path: "2.team.1.trophyChange", absent: true},
		{path: "2.opponent.1.tag", kind: "string", value: `"CQJ8V2U"`},
		{path: "2.opponent.1.crownsEarned", kind: "number", value: "2"},

		// A boat battle's defender: no crowns and no trophies given.
		{path: "3.type", kind: "string", value: `"boatBattle"`},
		{path: "3.team.0.crownsEarned", kind: "number", value: "0"},
		{path: "3.team.0.startTrophies", absent: true},
		{path: "3.opponent.0.startTrophies", kind: "number", value: "5292"},
		{path: "3.opponentCrowns", kind: "number", value: "3"},
		{path: "3.winner", kind: "number", value: "-3"},
	}
	wants = append(wants, clanWants("0.team.0.clan", "RP9QQG", "Kite Runners", 16000025)...)
	wants = append(wants, clanWants("1.opponent.0.clan", "J2VL8Y", "Night Owls", 16000078)...)
	wants = append(wants, clanWants("2.opponent.1.clan", "J2VL8Y", "Night Owls", 16000078)...)
	wants = append(wants, cardWants("0.team.0.deck.0", 28000003, 12, 12, "Rocket", "https://icons.example/cards/rocket.png", "Rare", "rocket", "Spell")...)
	wants = append(wants, cardWants("0.team.0.deck.1", 26000016, 8, 9, "Prince", "https://icons.example/cards/prince.png", "Epic", "prince", "Troop")...)
	wants = append(wants, cardWants("0.opponent.0.deck.1", 26000000, 13, 14, "Knight", "https://icons.example/cards/knight.png", "Common", "knight", "Troop")...)
	wants = append(wants, cardWants("2.team.1.deck.0", 28000008, 10, 14, "Zap", "https://icons.example/cards/zap.png", "Common", "zap", "Spell")...)
	checkFields(t, battles, wants)
}

// TestBattleCardTheCatalogLacks: a card newer than the catalog (and than
// the last /cards list fetched) keeps the key its name gives and the type
// its id gives, as a listed card does, not empty strings.
func TestBattleCardTheCatalogLacks(t *testing.T) {
	h := newHarness(t, harnessOptions{upstream: gameDataUpstream(t)})
	battles := getJSON(t, h, h.issue("7002"), "/player/2PYQ8RL/battles")
	wants := cardWants("0.opponent.0.deck.0", 26000998, 4, 6, "Goblin Sled", "https://icons.example/cards/goblin-sled.png", "Legendary", "goblin-sled", "Troop")
	checkFields(t, battles, wants[:len(wants)-1]) // its elixir cost is not in the answer
}

func TestClanSearchOfTheGamesData(t *testing.T) {
	h := newHarness(t, harnessOptions{upstream: gameDataUpstream(t)})
	found := getJSON(t, h, h.issue("7003"), "/clan/search?name=kite")
	if list, _ := found.([]any); len(list) != 3 {
		t.Fatalf("%d clans, want the search's 3: %s", len(list), jsonText(found))
	}
	wants := []fieldWant{
		{path: "0.tag", kind: "string", value: `"2YJVUP"`},
		{path: "0.name", kind: "string", value: `"Kite Runners"`},
		{path: "0.type", kind: "string", value: `"open"`},
		{path: "0.score", kind: "number", value: "53105"},
		{path: "0.memberCount", kind: "number", value: "50"},
		{path: "0.requiredScore", kind: "number", value: "2600"},
		{path: "0.donations", kind: "number", value: "5865"},
		{path: "0.badge.id", kind: "number", value: "16000078"},
		{path: "0.badge.name", kind: "string"},
		{path: "0.badge.category", kind: "string"},
		{path: "0.badge.image", kind: "string"},
		{path: "0.location.name", kind: "string", value: `"France"`},
		{path: "0.location.isCountry", kind: "boolean", value: "true"},
		{path: "0.location.code", kind: "string", value: `"FR"`},
		{path: "1.type", kind: "string", value: `"invite only"`},
		{path: "1.badge.id", kind: "number", value: "16000025"},
		{path: "1.location.name", kind: "string", value: `"Europe"`},
		{path: "1.location.isCountry", kind: "boolean", value: "false"},
		{path: "1.location.code", kind: "string", value: `"_EU"`},
		{path: "2.type", kind: "string", value: `"closed"`},
		{path: "2.requiredScore", kind: "number", value: "0"},
		{path: "2.donations", kind: "number", value: "0"},
		{path: "2.location", kind: "null"}, // the game gave none
	}
	checkFields(t, found, wants)
}

func TestTrackingAndHistoryOfTheGamesData(t *testing.T) {
	h := newHarness(t, harnessOptions{upstream: gameDataUpstream(t)})
	key := h.issue("7004")
	checkFields(t, getJSON(t, h, key, "/clan/RP9QQG/track"), []fieldWant{{path: "success", kind: "boolean", value: "true"}})
	checkFields(t, getJSON(t, h, key, "/clan/RP9QQG/tracking"), []fieldWant{
		{path: "tag", kind: "string", value: `"RP9QQG"`},
		{path: "active", kind: "boolean", value: "true"},
		{path: "available", kind: "boolean", value: "true"},
		{path: "legible", kind: "boolean", value: "true"},
		{path: "snapshotCount", kind: "number", value: "1"},
	})
	history := getJSON(t, h, key, "/clan/RP9QQG/history")
	slots, _ := history.(map[string]any)
	if len(slots) != 1 {
		t.Fatalf("history %s, want the one snapshot taken when tracked", jsonText(history))
	}
	var slot string
	for slot = range slots {
	}
	if want := h.clock.Now().UTC().Truncate(4 * time.Hour).Format("2006-01-02-15-04"); slot != want {
		t.Errorf("slot %s, want %s", slot, want)
	}
	wants := []fieldWant{
		{path: "donations", kind: "number", value: "3310"}, // the week's, as the game counts it
		{path: "memberCount", kind: "number", value: "3"},
		{path: "score", kind: "number", value: "38386"},
	}
	members := []struct {
		tag, name                         string
		rank, crowns, donations, trophies int
	}{
		{"2QCV9JR0", "Oriel", 1, 12, 246, 6089},
		{"YRU8QLG2", "Wren", 2, 0, 122, 5943},
		{"8LJRJRP", "Bram", 3, 0, 90, 5651}, // no clan-chest points given
	}
	for i, m := range members {
		p := func(field string) string { return fmt.Sprintf("members.%d.%s", i, field) }
		wants = append(wants,
			fieldWant{path: p("tag"), kind: "string", value: quoted(m.tag)},
			fieldWant{path: p("name"), kind: "string", value: quoted(m.name)},
			fieldWant{path: p("clanRank"), kind: "number", value: strconv.Itoa(m.rank)},
			fieldWant{path: p("crowns"), kind: "number", value: strconv.Itoa(m.crowns)},
			fieldWant{path: p("donations"), kind: "number", value: strconv.Itoa(m.donations)},
			fieldWant{path: p("trophies"), kind: "number", value: strconv.Itoa(m.trophies)},
		)
	}
	checkFields(t, slots[slot], wants)
}

func TestTournamentOfTheGamesData(t *testing.T) {
	h := newHarness(t, harnessOptions{upstream: gameDataUpstream(t), config: func(c *api.Config) { c.Tournaments = true }})
	key := h.issue("7005")
	single := getJSON(t, h, key, "/tournament/U2QQQL")
	wants := []fieldWant{
		{path: "tag", kind: "string", value: `"U2QQQL"`},
		{path: "type", kind: "string", value: `"open"`},
		{path: "open", kind: "boolean", value: "true"},
		{path: "status", kind: "string", value: `"ended"`},
		{path: "name", kind: "string", value: `"Kite Cup"`},
		{path: "description", kind: "string", value: `"100 gems for the winner"`},
		{path: "capacity", kind: "number", value: "3"},
		{path: "maxCapacity", kind: "number", value: "1000"},
		{path: "maxPlayers", kind: "number", value: "1000"},
		{path: "preparationDuration", kind: "number", value: "7200"},
		{path: "prepTime", kind: "number", value: "7200"},
		{path: "duration", kind: "number", value: "3600"},
		{path: "endedTime", kind: "string", value: `"20261029T163746.000Z"`},
		{path: "startTime", kind: "number", value: unixAt(2026, 10, 29, 15, 37, 46)},
		{path: "createTime", kind: "number", value: unixAt(2026, 10, 29, 13, 37, 46)},
		{path: "creator.tag", kind: "string", value: `"8CVQUGL"`},
		{path: "creator.name", kind: "string", value: `"Ilse"`},
		{path: "creator.score", kind: "number", value: "12"},
		{path: "members.0.tag", kind: "string", value: `"2J0RULR"`},
		{path: "members.0.name", kind: "string", value: `"Tamsin"`},
		{path: "members.0.score", kind: "number", value: "170"},
		{path: "members.2.tag", kind: "string", value: `"P9G9CU9"`},
		{path: "members.2.score", kind: "number", value: "0"},
		{path: "members.3", absent: true},
	}
	checkFields(t, single, wants)
	checkFields(t, getJSON(t, h, key, "/tournament/U2QQQL,%23U2QQQL"), []fieldWant{ // one tournament, named twice
		{path: "0.tag", kind: "string", value: `"U2QQQL"`},
		{path: "0.creator.name", kind: "string", value: `"Ilse"`},
		{path: "1", absent: true},
	})

	// The lookup made it known: the list element tells the same facts.
	known := getJSON(t, h, key, "/tournaments/known")
	checkFields(t, known, []fieldWant{
		{path: "0.tag", kind: "string", value: `"U2QQQL"`},
		{path: "0.open", kind: "boolean", value: "true"},
		{path: "0.status", kind: "string", value: `"ended"`},
		{path: "0.name", kind: "string", value: `"Kite Cup"`},
		{path: "0.currentPlayers", kind: "number", value: "3"},
		{path: "0.maxPlayers", kind: "number", value: "1000"},
		{path: "0.prepTime", kind: "number", value: "7200"},
		{path: "0.duration", kind: "number", value: "3600"},
		{path: "0.createTime", kind: "number", value: unixAt(2026, 10, 29, 13, 37, 46)},
		{path: "0.startTime", kind: "number", value: unixAt(2026, 10, 29, 15, 37, 46)},
		{path: "0.endTime", kind: "number", value: unixAt(2026, 10, 29, 16, 37, 46)},
		{path: "1", absent: true},
	})
	checkFields(t, getJSON(t, h, key, "/tournaments/1k"), []fieldWant{
		{path: "0.tag", kind: "string", value: `"U2QQQL"`},
		{path: "0.description", kind: "string", value: `"100 gems for the winner"`},
		{path: "0.maxCapacity", kind: "number", value: "1000"},
		{path: "0.updatedAt", kind: "number", value: strconv.FormatInt(h.clock.Now().Unix(), 10)},
	})
}
