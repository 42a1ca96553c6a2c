package models_test

import (
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

func TestManualClockMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 11, 2, 10, 30, 0, 0, time.FixedZone("CET", 3600))
	clock := models.NewManualClock(start)
	if got := clock.Now(); !got.Equal(start) || got.Location() != time.UTC {
		t.Fatalf("Now() = %v, want %v in UTC", got, start)
	}
	clock.Advance(90 * time.Minute)
	if got, want := clock.Now(), start.Add(90*time.Minute); !got.Equal(want) {
		t.Fatalf("after Advance: %v, want %v", got, want)
	}
	later := time.Date(2027, 1, 1, 0, 0, 0, 0, time.FixedZone("EST", -5*3600))
	clock.Set(later)
	if got := clock.Now(); !got.Equal(later) || got.Location() != time.UTC {
		t.Fatalf("after Set: %v, want %v in UTC", got, later)
	}
}

// TestManualClockAdvancesAddUp moves the clock from many goroutines while
// others read it (run under -race): no step is lost, and no reader sees
// the clock go back.
func TestManualClockAdvancesAddUp(t *testing.T) {
	start := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	clock := models.NewManualClock(start)
	const movers, steps = 8, 500
	var wg sync.WaitGroup
	for range movers {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range steps {
				clock.Advance(time.Second)
			}
		}()
		go func() {
			defer wg.Done()
			last := clock.Now()
			for range steps {
				now := clock.Now()
				if now.Before(last) {
					t.Errorf("clock went back from %v to %v", last, now)
					return
				}
				last = now
			}
		}()
	}
	wg.Wait()
	if got, want := clock.Now(), start.Add(movers*steps*time.Second); !got.Equal(want) {
		t.Fatalf("after %d advances of 1s: %v, want %v", movers*steps, got, want)
	}
}
