package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestClanChangesReachAnotherProcessOnSQLite: a change committed by one
// process on the SQLite file (crowns clans weekly TAG on beside a running
// server) is announced by the other at its next read of the outbox, and
// reads come every ClanChangePollInterval, at most a second: so within
// the 2 s the contract allows. The writer does not hear its own change a
// second time.
func TestClanChangesReachAnotherProcessOnSQLite(t *testing.T) {
	if store.ClanChangePollInterval > time.Second {
		t.Fatalf("the outbox is read every %s; changes must be seen within 2 s", store.ClanChangePollInterval)
	}
	ctx := context.Background()
	writer, reader := storetest.OpenTwins(t, store.DialectSQLite)
	writerChanges, readerChanges := recordChanges(t, writer), recordChanges(t, reader)
	writerTick, readerTick := follow(t, writer), follow(t, reader)
	writerChanges.await(t, "first announcement of the writer", isAll)
	readerChanges.await(t, "first announcement of the reader", isAll)
	readerChanges.take()

	trackFixture(t, writer, "2CCCP", trackedAt)
	if _, err := writer.SetWeekly(ctx, "2CCCP", true); err != nil {
		t.Fatal(err)
	}
	if got := readerChanges.take(); len(got) != 0 {
		t.Fatalf("the reader announced %v before reading the outbox", got)
	}
	readerTick <- time.Now()
	readerChanges.await(t, "change of 2CCCP read from the outbox", isTag("2CCCP"))

	writerChanges.take()
	writerTick <- time.Now()
	trackFixture(t, reader, "8LLL", trackedAt)
	writerTick <- time.Now()
	writerChanges.await(t, "change of 8LLL in the other process", isTag("8LLL"))
	if own := slices.DeleteFunc(writerChanges.take(), func(c models.ClanChange) bool { return !isTag("2CCCP")(c) }); len(own) != 0 {
		t.Fatalf("the writer announced its own change again: %v", own)
	}
}

// follow runs the outbox reader of db on a tick channel the test drives,
// until the test ends.
func follow(t *testing.T, db *store.Store) chan<- time.Time {
	t.Helper()
	tick := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- db.FollowClanChanges(ctx, tick) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("clan change outbox reader: %v", err)
		}
	})
	return tick
}
