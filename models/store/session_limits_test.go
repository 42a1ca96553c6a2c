package store_test

import (
	"context"
	"errors"
	"testing"

	"gorm.io/gorm"

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
	if statement, lock := sessionTimeouts(t, db.Session(ctx)); statement != "4s" || lock != "3s" {
		t.Errorf("statement_timeout = %q, lock_timeout = %q; want 4s and 3s", statement, lock)
	}
}

// sessionTimeouts reads the statement and lock timeouts of conn's
// session.
func sessionTimeouts(t *testing.T, conn *gorm.DB) (statement, lock string) {
	t.Helper()
	if err := conn.Raw("SHOW statement_timeout").Scan(&statement).Error; err != nil {
		t.Fatal(err)
	}
	if err := conn.Raw("SHOW lock_timeout").Scan(&lock).Error; err != nil {
		t.Fatal(err)
	}
	return statement, lock
}

// TestWorkWithoutSessionLimitsRunsWithoutThem: the work that may take
// longer than a request (migrations, and their wait for another
// process's migration lock) runs with neither timeout, and the pool's
// connection has both back after, also when the work's context was
// cancelled during it.
func TestWorkWithoutSessionLimitsRunsWithoutThem(t *testing.T) {
	cfg := storetest.Config(t, store.DialectPostgres)
	// One connection: the one the work pinned is the one read after.
	cfg.MaxOpenConns = 1
	db, err := store.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	for _, cancelled := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		err := db.WithoutSessionLimits(ctx, func(conn *gorm.DB) error {
			if statement, lock := sessionTimeouts(t, conn); statement != "0" || lock != "0" {
				t.Errorf("cancelled %v: during the work statement_timeout = %q, lock_timeout = %q; want both 0", cancelled, statement, lock)
			}
			if cancelled {
				cancel()
				return ctx.Err()
			}
			return nil
		})
		cancel()
		if cancelled != errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled %v: error %v", cancelled, err)
		}
		if statement, lock := sessionTimeouts(t, db.Session(context.Background())); statement != "4s" || lock != "3s" {
			t.Errorf("cancelled %v: after the work statement_timeout = %q, lock_timeout = %q; want 4s and 3s", cancelled, statement, lock)
		}
	}
}
