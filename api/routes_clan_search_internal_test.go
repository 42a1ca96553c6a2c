package api

import (
	"testing"

	"github.com/crownsdev/crowns/models"
)

func TestSearchCacheKeysTellEveryFieldApart(t *testing.T) {
	base := models.ClanSearchQuery{Name: "royal", MinScore: -1, Limit: 50}
	variants := []models.ClanSearchQuery{base}
	for _, change := range []func(*models.ClanSearchQuery){
		func(q *models.ClanSearchQuery) { q.Name = "royals" },
		func(q *models.ClanSearchQuery) { q.MinScore = 0 },
		func(q *models.ClanSearchQuery) { q.MinMembers = 2 },
		func(q *models.ClanSearchQuery) { q.MaxMembers = 2 },
		func(q *models.ClanSearchQuery) { q.LocationID = 2 },
		func(q *models.ClanSearchQuery) { q.Limit = 5 },
		func(q *models.ClanSearchQuery) { q.After = "abc" },
		func(q *models.ClanSearchQuery) { q.Before = "abc" },
		func(q *models.ClanSearchQuery) { q.Name = "royal\x00-1" }, // a name cannot pose as other fields
	} {
		q := base
		change(&q)
		variants = append(variants, q)
	}
	seen := map[string]models.ClanSearchQuery{}
	for _, q := range variants {
		key := searchCacheKey(q)
		if other, dup := seen[key]; dup {
			t.Fatalf("%+v and %+v share the cache key %q", q, other, key)
		}
		seen[key] = q
	}
	if searchCacheKey(base) != searchCacheKey(base) {
		t.Fatal("the key of one query changes")
	}
}
