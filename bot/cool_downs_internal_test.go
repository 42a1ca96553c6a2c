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
