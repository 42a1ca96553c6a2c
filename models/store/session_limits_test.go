package store_test

import (
	"context"
	"testing"

	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestSessionLimits: every pooled PostgreSQL connection starts with the
// statement and lock timeouts, and migrating (which lifts them on its own
// connection) leaves them in place on the pool.
func TestSessionLimits(t *testing.T) {
	db := storetest.Open(t, store.DialectPostgres)
	ctx := context.Background()
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"statement_timeout": "4s", "lock_timeout": "3s"} {
		var got string
		if err := db.Session(ctx).Raw("SHOW " + name).Scan(&got).Error; err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
}
