package bot

import (
	"testing"
	"time"
)

// A use given back is forgotten only if it is still the one recorded: a
// later use, made after the period, stays.
func TestACoolDownGivenBackLateKeepsTheLaterUse(t *testing.T) {
	c := newCoolDowns(30 * time.Second)
	first := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	c.take(statsRequests, "1", first)
	c.giveBack(statsRequests, "1", first)
	if wait := c.take(statsRequests, "1", first.Add(time.Second)); wait != 0 {
		t.Fatalf("a use given back still holds the member back %s", wait)
	}
	later := first.Add(40 * time.Second)
	c.take(statsRequests, "1", later)
	c.giveBack(statsRequests, "1", first.Add(time.Second)) // the older use's
	if wait := c.take(statsRequests, "1", later.Add(time.Second)); wait != 29*time.Second {
		t.Fatalf("after an older use was given back, the later one holds %s, want 29s", wait)
	}
}

// Forgetting expired uses forgets only those: another member's use, or
// the same member's use of another group, still in its period, holds.
func TestForgettingExpiredUsesKeepsTheOthersCoolDowns(t *testing.T) {
	c := newCoolDowns(30 * time.Second)
	first := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	c.take(keyChanges, "1", first)
	c.take(statsRequests, "1", first)
	if wait := c.take(keyChanges, "2", first.Add(10*time.Second)); wait != 0 {
		t.Fatalf("another member's first use waits %s", wait)
	}
	if wait := c.take(keyChanges, "1", first.Add(11*time.Second)); wait != 19*time.Second {
		t.Fatalf("member 1's key change 11 s after theirs, another member's use between, waits %s, want 19s", wait)
	}
	if wait := c.take(statsRequests, "1", first.Add(12*time.Second)); wait != 18*time.Second {
		t.Fatalf("member 1's stats 12 s after theirs waits %s, want 18s", wait)
	}
}

// A clock put back (before a member's last use) holds them no longer
// than a period: the use goes through.
func TestACoolDownAfterTheClockWentBackHoldsNoLongerThanItsPeriod(t *testing.T) {
	c := newCoolDowns(30 * time.Second)
	first := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	c.take(keyChanges, "1", first)
	if wait := c.take(keyChanges, "1", first.Add(-time.Minute)); wait != 0 {
		t.Fatalf("a use a minute before the last one, the clock put back, waits %s, want none", wait)
	}
}
