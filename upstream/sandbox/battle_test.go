package sandbox_test

import (
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/upstream/catalog"
	"github.com/crownsdev/crowns/upstream/official"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

func TestBattleLogs(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	cat, err := catalog.Load()
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	unknownCards := 0
	for _, tag := range f.world.PlayerTags() {
		log := decode[[]official.Battle](t, f, playerPath(tag)+"/battlelog")
		if len(log) < 25 || len(log) > 40 {
			t.Fatalf("%s: %d battles", tag, len(log))
		}
		var previous time.Time
		for i, b := range log {
			types[b.Type]++
			at, ok := official.ParseTime(b.BattleTime)
			if !ok || at.After(start) || (i > 0 && !at.Before(previous)) {
				t.Fatalf("%s battle %d: time %q out of order or in the future", tag, i, b.BattleTime)
			}
			previous = at
			if b.Team[0].Tag != "#"+tag || len(b.Team) != len(b.Opponent) {
				t.Fatalf("%s battle %d: team %+v", tag, i, b.Team)
			}
			for _, p := range append(b.Team, b.Opponent...) {
				if p.Crowns < 0 || p.Crowns > 3 || len(p.Cards) != 8 {
					t.Fatalf("%s battle %d: %d crowns, %d cards", tag, i, p.Crowns, len(p.Cards))
				}
				for _, card := range p.Cards {
					if _, known := cat.Card(card.ID); !known {
						unknownCards++
					}
				}
			}
			if (b.Type == "PvP") != (b.Team[0].TrophyChange != nil) {
				t.Fatalf("%s battle %d (%s): trophy change %v", tag, i, b.Type, b.Team[0].TrophyChange)
			}
			// The game API gives starting trophies on both sides of a 1v1
			// battle, ladder or not; a trophy change only on the ladder.
			oneOnOne := b.Type == "PvP" || b.Type == "challenge" || b.Type == "riverRacePvP"
			for _, p := range append(b.Team, b.Opponent...) {
				if oneOnOne != (p.StartingTrophies != nil) {
					t.Fatalf("%s battle %d (%s): %s starting trophies %v", tag, i, b.Type, p.Tag, p.StartingTrophies)
				}
			}
			if (b.Type == "challenge") != (b.ChallengeWinCountBefore != nil) {
				t.Fatalf("%s battle %d (%s): challenge win count %v", tag, i, b.Type, b.ChallengeWinCountBefore)
			}
		}
		opponent := strings.TrimPrefix(log[0].Opponent[0].Tag, "#")
		if status, _ := f.get(t, playerPath(opponent)); status != 200 {
			t.Fatalf("opponent %s does not resolve: %d", opponent, status)
		}
	}
	for _, kind := range []string{"PvP", "challenge", "casual2v2", "tournament", "clanMate", "riverRacePvP"} {
		if types[kind] == 0 {
			t.Errorf("no %s battle in the sample, types %v", kind, types)
		}
	}
	if unknownCards == 0 {
		t.Error("no card outside the catalog in the sample: the fallback goes unexercised")
	}
}

func TestBattleLogGrowsWithTheClock(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	tag := f.world.PlayerTags()[0]
	before, _ := f.world.BattleLog(tag)
	f.clock.Advance(12 * time.Hour)
	after, _ := f.world.BattleLog(tag)
	newest, _ := official.ParseTime(after[0].BattleTime)
	previous, _ := official.ParseTime(before[0].BattleTime)
	if !newest.After(previous) {
		t.Fatalf("newest battle %s after 12 hours, was %s: want a newer one", after[0].BattleTime, before[0].BattleTime)
	}
}

// TestCardStarLevels checks that battle decks carry the starLevel the
// game API gives maxed cards: 1 to 3 on some of them, none on cards below
// their maximum level, and the same for a player's card in every battle.
func TestCardStarLevels(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	type playerCard struct {
		player string
		card   int
	}
	stars := map[playerCard]int{}
	starred, maxed := 0, 0
	for _, tag := range f.world.PlayerTags() {
		for i, b := range decode[[]official.Battle](t, f, playerPath(tag)+"/battlelog") {
			for _, p := range append(b.Team, b.Opponent...) {
				for _, card := range p.Cards {
					switch {
					case card.StarLevel < 0 || card.StarLevel > 3:
						t.Fatalf("%s battle %d: %s has star level %d", tag, i, card.Name, card.StarLevel)
					case card.StarLevel > 0 && card.Level < card.MaxLevel:
						t.Fatalf("%s battle %d: %s at level %d of %d has star level %d", tag, i, card.Name, card.Level, card.MaxLevel, card.StarLevel)
					}
					if card.Level < card.MaxLevel {
						continue
					}
					maxed++
					if card.StarLevel > 0 {
						starred++
					}
					key := playerCard{p.Tag, card.ID}
					if seen, ok := stars[key]; ok && seen != card.StarLevel {
						t.Fatalf("%s: %s has star level %d and %d in different battles", p.Tag, card.Name, seen, card.StarLevel)
					}
					stars[key] = card.StarLevel
				}
			}
		}
	}
	if starred == 0 || starred == maxed {
		t.Fatalf("%d of %d maxed cards carry a star level, want some but not all", starred, maxed)
	}
}
