package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestPlayersAreLookedUpThroughTheIndexBeforeStatistics: the dictionary
// rows a snapshot or a history needs and the cache has forgotten are read
// through the (tag, name) index even when PostgreSQL has no statistics of
// the table yet (filled since the last ANALYZE, or autovacuum off): a
// lookup by tag alone was planned as a scan of the whole table then.
func TestPlayersAreLookedUpThroughTheIndexBeforeStatistics(t *testing.T) {
	db := storetest.Open(t, store.DialectPostgres)
	ctx := context.Background()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	session := db.Session(ctx)
	if err := session.Exec(`INSERT INTO clan_players (tag, name) SELECT 'P' || g, 'player ' || g FROM generate_series(1, 50000) g`).Error; err != nil {
		t.Fatal(err)
	}
	const members = 50
	args := make([]any, 0, 2*members)
	for i := range members {
		n := 1 + i*997
		args = append(args, fmt.Sprint("P", n), fmt.Sprint("player ", n))
	}
	var plan []string
	if err := session.Raw(`EXPLAIN `+store.PlayersByKeySQL(members), args...).Scan(&plan).Error; err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(plan, "\n"); strings.Contains(text, "Seq Scan") || !strings.Contains(text, "clan_players_tag_name_key") {
		t.Fatalf("the lookup of %d players is not planned through the (tag, name) index:\n%s", members, text)
	}
}
