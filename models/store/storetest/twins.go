package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
)

// ChangeDeadline bounds the wait for a clan change from another process:
// generous, as it is reached only when something is broken.
const ChangeDeadline = 20 * time.Second

// OpenTwins returns two stores on one fresh, migrated database of engine
// (a SQLite file or a PostgreSQL schema), as two processes sharing a
// database have: each with its own caches and change subscribers; both
// closed when the test ends.
func OpenTwins(t testing.TB, engine store.Dialect) (first, second *store.Store) {
	t.Helper()
	cfg := Config(t, engine)
	open := func() *store.Store {
		db, err := store.Open(context.Background(), cfg)
		if err != nil {
			t.Fatalf("open a store on the shared database: %v", err)
		}
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	first = open()
	if _, err := first.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate the shared database: %v", err)
	}
	return first, open()
}

// EachEngineTwins runs fn as a subtest named after each engine, with two
// stores on one fresh migrated database (see OpenTwins).
func EachEngineTwins(t *testing.T, fn func(t *testing.T, db, otherProcess *store.Store)) {
	t.Helper()
	for _, engine := range Engines() {
		t.Run(string(engine), func(t *testing.T) {
			db, otherProcess := OpenTwins(t, engine)
			fn(t, db, otherProcess)
		})
	}
}

// ListenForClanChanges runs the change listener of clans until the test
// ends.
func ListenForClanChanges(t testing.TB, clans *store.Store) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- clans.ListenForClanChanges(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("clan change listener: %v", err)
		}
	})
}

// AwaitClanChange waits for a change matching want on heard, at most
// ChangeDeadline; what names it in the failure.
func AwaitClanChange(t testing.TB, heard <-chan models.ClanChange, what string, want func(models.ClanChange) bool) {
	t.Helper()
	deadline := time.After(ChangeDeadline)
	for {
		select {
		case change := <-heard:
			if want(change) {
				return
			}
		case <-deadline:
			t.Fatalf("no %s within %s", what, ChangeDeadline)
		}
	}
}
