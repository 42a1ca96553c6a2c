package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
)

// silentStore is a store whose write of a snapshot never answers, as a
// database that stopped answering (a connection whose network path
// died): it holds until its context ends.
type silentStore struct {
	*store.Store
	writing chan struct{}
}

func (s silentStore) CompleteSnapshotJob(ctx context.Context, _ models.SnapshotJob, _ models.ClanDetails, _ bool, _ time.Time) (bool, error) {
	s.writing <- struct{}{}
	<-ctx.Done()
	return false, ctx.Err()
}

// TestAStopCutsTheWritesUnderWayAfterItsGrace: the writes that finish a
// job go on after a stop begins, so that what the database committed
// reaches the process, but only for the scheduler's grace: a database
// that stops answering does not hold the stop for the writes' own 30 s
// (a worker may do two in a row; Docker's stop grace is 30 s). Here the
// grace is none: Run returns at once, the job left to be taken over.
func TestAStopCutsTheWritesUnderWayAfterItsGrace(t *testing.T) {
	e := newEnv(t, storetest.Open(t, store.DialectSQLite), 1)
	e.trackAll(t)
	e.clock.Set(start.Add(2*time.Hour + 37*time.Minute)) // 12:07: the 12:00 slot is due
	silent := silentStore{Store: e.clans, writing: make(chan struct{}, 1)}
	s, err := scheduler.New(silent, e.world.source, testConfig(e.clock, "replica-a"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetStopGrace(0)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	select {
	case <-silent.writing:
	case <-time.After(10 * time.Second):
		t.Fatal("no snapshot write began")
	}
	stop()
	// Within a third of the writes' own timeout.
	expectRunReturnsNilWithin(t, done, 10*time.Second)
}
