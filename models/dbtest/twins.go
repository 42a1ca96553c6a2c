package dbtest

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

// ChangeDeadline bounds the wait for a clan change from another process:
// generous, as it is reached only when something is broken.
const ChangeDeadline = 20 * time.Second

// OpenTwins returns two stores on one fresh, migrated PostgreSQL schema,
// as two processes sharing a database have; both closed when the test
// ends.
func OpenTwins(t testing.TB) (first, second *models.Store) {
	t.Helper()
	cfg := Config(t, models.DialectPostgres)
	open := func() *models.Store {
		store, err := models.Open(context.Background(), cfg)
		if err != nil {
			t.Fatalf("open a store on the shared schema: %v", err)
		}
		t.Cleanup(func() { _ = store.Close() })
		return store
	}
	first = open()
	if _, err := first.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate the shared schema: %v", err)
	}
	return first, open()
}

// ListenForClanChanges runs the change listener of clans until the test
// ends.
func ListenForClanChanges(t testing.TB, clans *models.ClanStore) {
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
