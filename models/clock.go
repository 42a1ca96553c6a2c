package models

import (
	"sync"
	"sync/atomic"
	"time"
)

// Clock tells the time. Everything that depends on "now" (slots, TTLs, rate
// limits, key events) takes one, so tests can move time by hand.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real wall clock, in UTC.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// ManualClock is a Clock that only moves when told to. Tests, benchmarks and
// the sandbox's replay mode use it; it is safe for concurrent use. Reading
// it takes no lock, so parallel benchmarks measure their own contention,
// not the clock's. Make one with NewManualClock.
type ManualClock struct {
	// moving serializes Set and Advance.
	moving sync.Mutex
	now    atomic.Pointer[time.Time]
}

// NewManualClock returns a ManualClock set to start (converted to UTC).
func NewManualClock(start time.Time) *ManualClock {
	c := &ManualClock{}
	c.Set(start)
	return c
}

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Time { return *c.now.Load() }

// Set moves the clock to t (converted to UTC).
func (c *ManualClock) Set(t time.Time) {
	c.moving.Lock()
	defer c.moving.Unlock()
	t = t.UTC()
	c.now.Store(&t)
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.moving.Lock()
	defer c.moving.Unlock()
	t := c.now.Load().Add(d)
	c.now.Store(&t)
}
