// Package backoff is the one retry schedule of Crowns: every loop that
// tries again after a failure (game-API calls and the catalog refresh,
// scheduler jobs, the clan change listener, opening the database and
// waiting for it at start-up, storing looked-up tournaments again, the
// Discord gateway, reconciliation, answers and audit poll, the last usage
// flush) waits the delay a Policy gives, with Wait where the wait ends
// with a context.
//
// The delay doubles from First per failure in a row, up to Max, and is
// then jittered to a random point in its upper half, so that replicas and
// concurrent callers failing together do not retry in lockstep, while a
// caller can still count on waiting at least half the nominal delay.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Policy says how long to wait between tries.
type Policy struct {
	// First is the nominal wait after the first failure.
	First time.Duration
	// Max caps the nominal wait; zero means First never grows.
	Max time.Duration
}

// Nominal is the wait after failures failures in a row before jitter:
// First doubled per failure after the first, at most Max. Fewer than one
// failure counts as one.
func (p Policy) Nominal(failures int) time.Duration {
	limit := max(p.Max, p.First)
	d := p.First
	for i := 1; i < failures && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// Delay is the wait after failures failures in a row: the nominal wait,
// jittered uniformly into [Nominal/2, Nominal].
func (p Policy) Delay(failures int) time.Duration {
	d := p.Nominal(failures)
	if d <= 0 {
		return 0
	}
	half := d / 2
	return d - half + rand.N(half+1)
}

// Wait waits d, or until ctx ends; it reports whether the whole wait
// passed (false: ctx ended first, or had ended before).
func Wait(ctx context.Context, d time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}
