package api

import (
	"testing"

	"github.com/crownsdev/crowns/models/legacy"
)

func TestSearchCacheKeysTellEveryFieldApart(t *testing.T) {
	base := legacy.ClanSearchQuery{Name: "royal", MinScore: -1, Limit: 50}
	variants := []legacy.ClanSearchQuery{base}
	for _, change := range []func(*legacy.ClanSearchQuery){
		func(q *legacy.ClanSearchQuery) { q.Name = "royals" },
		func(q *legacy.ClanSearchQuery) { q.MinScore = 0 },
		func(q *legacy.ClanSearchQuery) { q.MinMembers = 2 },
		func(q *legacy.ClanSearchQuery) { q.MaxMembers = 2 },
		func(q *legacy.ClanSearchQuery) { q.LocationID = 2 },
		func(q *legacy.ClanSearchQuery) { q.Limit = 5 },
		func(q *legacy.ClanSearchQuery) { q.After = "abc" },
		func(q *legacy.ClanSearchQuery) { q.Before = "abc" },
		func(q *legacy.ClanSearchQuery) { q.Name = "royal\x00-1" }, // a name cannot pose as other fields
	} {
		q := base
		change(&q)
		variants = append(variants, q)
	}
	seen := map[string]legacy.ClanSearchQuery{}
	for _, q := range variants {
		key := string(searchCacheKey(nil, q))
		if other, dup := seen[key]; dup {
			t.Fatalf("%+v and %+v share the cache key %q", q, other, key)
		}
		seen[key] = q
	}
	if first, again := string(searchCacheKey(nil, base)), string(searchCacheKey(make([]byte, 0, 8), base)); first != again {
		t.Fatal("the key of one query changes")
	}
}
