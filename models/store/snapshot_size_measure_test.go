//go:build measure

package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestMeasureSnapshotSize stores 10,000 snapshots of 50 realistic members
// on PostgreSQL and reports the bytes per snapshot: pg_total_relation_size
// (heap, indexes, TOAST) of clan_snapshots and all its partitions, divided
// by rows. Run it with
//
//	go test ./models/store -run TestMeasureSnapshotSize -tags measure -v
func TestMeasureSnapshotSize(t *testing.T) {
	const (
		clanCount = 100
		slots     = 100 // 100 clans x 100 slots = 10,000 snapshots
		members   = 50
	)
	db := storetest.Open(t, store.DialectPostgres)
	clans := db
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	start := at("2026-01-01T00:00:00Z")
	for c := range clanCount {
		tag := realisticTag(rng, 8+c%2)
		clan := realisticClan(rng, tag, members)
		result, err := clans.Track(ctx, models.TrackRequest{Tag: tag, Clan: clan, Legible: true, By: models.TrackedByKey, KeyID: 1, Now: start})
		if err != nil {
			t.Fatal(err)
		}
		for s := 1; s < slots; s++ {
			evolve(rng, &clan)
			slot := start.Add(time.Duration(s) * 4 * time.Hour)
			if _, err := clans.SaveSnapshots(ctx, result.Clan.ID, models.SnapshotFourHourly, []models.HistorySnapshot{models.SnapshotOf(clan, slot)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var rows, snapshotBytes, memberBytes, dictionaryBytes, players int64
	sql := storetest.SQL(t, db).WithContext(ctx)
	sql.Raw(`SELECT COUNT(*) FROM clan_snapshots`).Scan(&rows)
	sql.Raw(`SELECT pg_total_relation_size('clan_snapshots'::regclass) + COALESCE((SELECT SUM(pg_total_relation_size(inhrelid))
		FROM pg_inherits WHERE inhparent = 'clan_snapshots'::regclass), 0)`).Scan(&snapshotBytes)
	sql.Raw(`SELECT SUM(octet_length(members)) FROM clan_snapshots`).Scan(&memberBytes)
	sql.Raw(`SELECT pg_total_relation_size('clan_players'::regclass)`).Scan(&dictionaryBytes)
	sql.Raw(`SELECT COUNT(*) FROM clan_players`).Scan(&players)
	if rows != clanCount*slots {
		t.Fatalf("stored %d snapshots, want %d", rows, clanCount*slots)
	}
	perSnapshot := float64(snapshotBytes) / float64(rows)
	t.Logf("%d snapshots of %d members: clan_snapshots total %d bytes = %.0f bytes/snapshot (member list %.0f bytes on average)",
		rows, members, snapshotBytes, perSnapshot, float64(memberBytes)/float64(rows))
	t.Logf("player dictionary: %d rows, %d bytes (%.0f bytes/snapshot amortised)", players, dictionaryBytes, float64(dictionaryBytes)/float64(rows))
	if perSnapshot > 1000 {
		t.Errorf("%.0f bytes per snapshot, over the 1,000-byte target", perSnapshot)
	}
}

const tagAlphabet = "0289CGJLPQRUVY"

func realisticTag(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = tagAlphabet[rng.IntN(len(tagAlphabet))]
	}
	return string(b)
}

var nameParts = []string{"Min", "mateo", "quietfox", "Alpha", "Faded", "nightowl", "Héctor", "Tatto", "kasia", "twigs",
	"Dirty", "Italian", "Sunrise™", "Venom", "Ñandú", "Ørjan", "王者", "Kröne", "Zoë", "Łukasz", "dragon", "xX", "Xx"}

// realisticName is 3 to 15 characters, some of them not ASCII.
func realisticName(rng *rand.Rand) string {
	name := nameParts[rng.IntN(len(nameParts))]
	for len([]rune(name)) < 3+rng.IntN(8) {
		name += nameParts[rng.IntN(len(nameParts))]
	}
	if runes := []rune(name); len(runes) > 15 {
		name = string(runes[:15])
	}
	if rng.IntN(3) == 0 {
		name += fmt.Sprint(rng.IntN(100))
	}
	return name
}

func realisticClan(rng *rand.Rand, tag string, n int) models.ClanDetails {
	clan := models.ClanDetails{Tag: tag, Name: realisticName(rng), Description: "crowns.example", MemberCount: n}
	for i := range n {
		clan.Members = append(clan.Members, realisticMember(rng, 6500-i*40-rng.IntN(40)))
	}
	rank(&clan)
	return clan
}

func realisticMember(rng *rand.Rand, trophies int) models.ClanMember {
	return models.ClanMember{
		Tag:             realisticTag(rng, 8+rng.IntN(2)),
		Name:            realisticName(rng),
		Trophies:        trophies,
		Donations:       rng.IntN(400),
		ClanChestPoints: rng.IntN(3) * rng.IntN(80),
	}
}

// evolve moves a clan on by four hours: trophies drift, donations grow and
// reset on Mondays, now and then a member leaves and another joins.
func evolve(rng *rand.Rand, clan *models.ClanDetails) {
	for i := range clan.Members {
		m := &clan.Members[i]
		m.Trophies += rng.IntN(61) - 30
		m.Donations += rng.IntN(40)
		m.ClanChestPoints += rng.IntN(2) * rng.IntN(5)
	}
	if rng.IntN(4) == 0 {
		clan.Members[rng.IntN(len(clan.Members))] = realisticMember(rng, 4000+rng.IntN(2500))
	}
	rank(clan)
}

func rank(clan *models.ClanDetails) {
	members := clan.Members
	for i := 1; i < len(members); i++ {
		for j := i; j > 0 && members[j].Trophies > members[j-1].Trophies; j-- {
			members[j], members[j-1] = members[j-1], members[j]
		}
	}
	for i := range members {
		members[i].ClanRank = i + 1
	}
}
