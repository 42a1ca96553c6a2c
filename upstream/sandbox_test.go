package upstream_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/official"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// sandboxClient is the real client talking HTTP to a sandbox world.
func sandboxClient(t *testing.T) (*upstream.Client, *sandbox.World, *models.ManualClock) {
	t.Helper()
	clock := models.NewManualClock(time.Date(2024, 5, 14, 9, 45, 0, 0, time.UTC))
	world := sandbox.NewWorld(sandbox.Config{Seed: 42, Clock: clock, Clans: 400})
	server := httptest.NewServer(world.Handler())
	t.Cleanup(server.Close)
	client, _ := newClient(t, server.URL+"/v1", upstream.Config{})
	return client, world, clock
}

var legacyClanTypes = map[string]string{"open": "open", "inviteOnly": "invite only", "closed": "closed"}

func TestSandboxClanSearch(t *testing.T) {
	client, world, _ := sandboxClient(t)
	ctx := context.Background()
	page, err := client.SearchClans(ctx, legacy.ClanSearchQuery{Name: "the", MinScore: -1, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 10 || page.After == "" || page.Before != "" {
		t.Fatalf("%d items, cursors %q / %q", len(page.Items), page.After, page.Before)
	}
	for _, got := range page.Items {
		clan, ok := world.Clan(got.Tag)
		if !ok {
			t.Fatalf("search result %s is not a clan of the world", got.Tag)
		}
		if got.Name != clan.Name || got.Type != legacyClanTypes[clan.Type] || got.Score != clan.ClanScore || got.MemberCount != clan.Members ||
			got.RequiredScore != clan.RequiredTrophies || got.Donations != clan.DonationsPerWeek || got.Badge.ID != clan.BadgeID || got.Badge.Name == "" {
			t.Errorf("result %+v does not match the world's clan %+v", got, clan)
		}
		if (got.Location == nil) != (clan.Location == nil) || (got.Location != nil && (got.Location.Code == "" || (clan.Location.IsCountry && got.Location.Code != clan.Location.CountryCode))) {
			t.Errorf("result %s location %+v, world %+v", got.Tag, got.Location, clan.Location)
		}
	}
	next, err := client.SearchClans(ctx, legacy.ClanSearchQuery{Name: "the", MinScore: -1, Limit: 10, After: page.After})
	if err != nil {
		t.Fatal(err)
	}
	if next.Before == "" || len(next.Items) == 0 || next.Items[0].Tag == page.Items[0].Tag {
		t.Fatalf("the next page %+v does not follow", next)
	}
	if _, err := client.SearchClans(ctx, legacy.ClanSearchQuery{Name: "ab", MinScore: -1}); !errors.Is(err, models.ErrInvalid) {
		t.Fatalf("a too short name: %v, want invalid", err)
	}
}

func TestSandboxClanDetails(t *testing.T) {
	client, world, clock := sandboxClient(t)
	tag := world.TrackableClanTags()[0]
	details, err := client.Clan(context.Background(), tag)
	if err != nil {
		t.Fatal(err)
	}
	clan, _ := world.Clan(tag)
	if details.Tag != tag || details.Description != clan.Description || details.Score != clan.ClanScore || len(details.Members) != clan.Members {
		t.Fatalf("details %+v, world %+v", details, clan)
	}
	for i, m := range details.Members {
		w := clan.MemberList[i]
		if m.Tag != strings.TrimPrefix(w.Tag, "#") || m.Trophies != w.Trophies || m.Donations != w.Donations || m.ClanChestPoints != *w.ClanChestPoints ||
			m.Role != w.Role || m.ClanRank != i+1 {
			t.Errorf("member %d: %+v, world %+v", i, m, w)
		}
	}
	clock.Advance(4 * time.Hour)
	later, err := client.Clan(context.Background(), tag)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(later.Members, details.Members) {
		t.Error("members did not change over 4 hours")
	}
	if _, err := client.Clan(context.Background(), "2222222Q"); !errors.Is(err, models.ErrNotFound) {
		t.Fatalf("an unknown clan: %v, want not found", err)
	}
}

func TestSandboxBattles(t *testing.T) {
	client, world, _ := sandboxClient(t)
	for _, tag := range world.PlayerTags()[:8] {
		battles, err := client.PlayerBattles(context.Background(), tag)
		if err != nil {
			t.Fatal(err)
		}
		log, _ := world.BattleLog(tag)
		if len(battles) != legacy.MaxBattles || len(log) < legacy.MaxBattles {
			t.Fatalf("%s: %d battles from a log of %d", tag, len(battles), len(log))
		}
		for i, b := range battles {
			at, _ := official.ParseTime(log[i].BattleTime)
			if b.UTCTime != at.Unix() || b.Team[0].Tag != tag || b.Winner != b.TeamCrowns-b.OpponentCrowns || b.TeamSize != len(log[i].Team) {
				t.Fatalf("%s battle %d: %+v", tag, i, b)
			}
			if b.Type == "2v2" && (b.Mode.Players != "TvT" || b.TeamCrowns > 3) {
				t.Fatalf("%s battle %d: 2v2 as %+v with %d crowns", tag, i, b.Mode, b.TeamCrowns)
			}
			for _, p := range append(b.Team, b.Opponent...) {
				if len(p.Deck) != 8 || !strings.HasPrefix(p.DeckLink, "https://link.clashroyale.com/deck/en?deck=") || strings.Count(p.DeckLink, ";") != 7 {
					t.Fatalf("%s battle %d: participant %s deck %d cards, link %q", tag, i, p.Tag, len(p.Deck), p.DeckLink)
				}
				for _, card := range p.Deck {
					if card.Name == "" || card.Level < 1 || card.Level > card.MaxLevel || len(card.RequiredForUpgrade) == 0 {
						t.Fatalf("%s battle %d: card %+v", tag, i, card)
					}
				}
			}
		}
	}
}

func TestSandboxTournaments(t *testing.T) {
	client, world, _ := sandboxClient(t)
	ctx := context.Background()
	tags := world.TournamentTags()
	tag := tags[len(tags)/2]
	details, err := client.Tournament(ctx, tag)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := world.Tournament(tag)
	if details.Tag != tag || details.Status != raw.Status || details.Capacity != len(details.Members) || details.CreatedTime.IsZero() {
		t.Fatalf("tournament %+v", details)
	}
	found, err := client.SearchTournaments(ctx, "cup", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 5 {
		t.Fatalf("%d tournaments found, want 5", len(found))
	}
	for _, tour := range found {
		if !strings.Contains(strings.ToLower(tour.Name), "cup") || tour.Members != nil {
			t.Errorf("search result %+v", tour)
		}
	}
}

func TestSandboxCatalogLists(t *testing.T) {
	client, _, _ := sandboxClient(t)
	cards, err := client.Cards(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(cards) < 100 || cards[0].Key == "" || cards[0].Rarity == "" || cards[0].Icon == "" {
		t.Fatalf("%d cards, first %+v", len(cards), cards[0])
	}
	locations, err := client.Locations(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(locations) < 50 || locations[0].IsCountry || !slices.ContainsFunc(locations, func(l upstream.LocationListing) bool { return l.CountryCode == "FR" }) {
		t.Fatalf("%d locations", len(locations))
	}
}
