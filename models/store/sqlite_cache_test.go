package store_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestEverySQLiteConnectionHasTheSmallerPageCache: each pooled SQLite
// connection, not only the first, starts with the page cache the store
// sets, which bounds the memory of the embedded default.
func TestEverySQLiteConnectionHasTheSmallerPageCache(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	ctx := context.Background()
	pool, err := db.Session(ctx).DB()
	if err != nil {
		t.Fatal(err)
	}
	// Held at once, the connections are distinct ones of the pool.
	var held []*sql.Conn
	defer func() {
		for _, conn := range held {
			_ = conn.Close()
		}
	}()
	for i := range 3 {
		conn, err := pool.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, conn)
		var size int
		if err := conn.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&size); err != nil {
			t.Fatal(err)
		}
		if size != store.SQLiteCacheSize {
			t.Errorf("connection %d: cache_size %d, want %d", i, size, store.SQLiteCacheSize)
		}
	}
}
