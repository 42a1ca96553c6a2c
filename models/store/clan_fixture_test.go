package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// trackedAt is when the tests track their clans: a Tuesday, in the 08:00
// slot.
var trackedAt = at("2026-03-10T09:30:00Z")

// eachClanStore runs fn as a subtest per engine with a fresh Store.
func eachClanStore(t *testing.T, fn func(t *testing.T, ctx context.Context, clans *store.Store)) {
	t.Helper()
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		fn(t, context.Background(), db)
	})
}

// clanFixture returns a clan as the upstream would describe it, with n
// members whose numbers depend on variant, listed out of rank order.
func clanFixture(tag string, n, variant int) models.ClanDetails {
	clan := models.ClanDetails{Tag: tag, Name: "Clan " + tag, Description: "stats at crowns.example", MemberCount: n, Score: 43000 + 7*n + variant}
	for i := n - 1; i >= 0; i-- {
		clan.Members = append(clan.Members, models.ClanMember{
			Tag:             fmt.Sprintf("%sP%02d", tag, i),
			Name:            fmt.Sprintf("Mémber %d", i),
			ClanRank:        i + 1,
			Trophies:        6000 - 17*i + variant,
			Donations:       (i*37 + variant) % 600,
			ClanChestPoints: (i * variant) % 90,
		})
	}
	return clan
}

// trackFixture tracks a fixture clan by key at now.
func trackFixture(t *testing.T, clans *store.Store, tag string, now time.Time) models.TrackResult {
	t.Helper()
	result, err := clans.Track(context.Background(), models.TrackRequest{
		Tag: tag, Clan: clanFixture(tag, 50, 0), Legible: true, By: models.TrackedByKey, KeyID: 42, Now: now,
	})
	if err != nil {
		t.Fatalf("track %s: %v", tag, err)
	}
	return result
}

// at parses an RFC 3339 time of a test table.
func at(value string) time.Time {
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		panic(err)
	}
	return t
}
