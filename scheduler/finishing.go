package scheduler

import (
	"context"
	"time"
)

// stopGrace is how long the database writes that finish work (a job's
// snapshot, retry or release, a claim, a tournament lookup's store) go on
// once the scheduler is stopping: they run past ctx's end, so that what
// the database committed reaches this process, but a database that stops
// answering does not hold a stop for their whole timeout (a worker may do
// two in a row). A write cut so leaves its job to be taken over when its
// lease expires: nothing is lost.
const stopGrace = 5 * time.Second

// finishing is the context of a write that finishes work: not cancelled
// with ctx, bounded by timeout, and ended grace after ctx ends.
func finishing(ctx context.Context, timeout, grace time.Duration) (context.Context, context.CancelFunc) {
	writeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	// A cancel after the write ended is a no-op: the grace's timer is
	// left to fire.
	stopWatching := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return writeCtx, func() {
		stopWatching()
		cancel()
	}
}
