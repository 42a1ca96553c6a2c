package backoff_test

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
)

func TestNominalDoublesUpToMax(t *testing.T) {
	p := backoff.Policy{First: 100 * time.Millisecond, Max: time.Second}
	cases := []struct {
		failures int
		want     time.Duration
	}{
		{-1, 100 * time.Millisecond},
		{0, 100 * time.Millisecond},
		{1, 100 * time.Millisecond},
		{2, 200 * time.Millisecond},
		{3, 400 * time.Millisecond},
		{4, 800 * time.Millisecond},
		{5, time.Second},
		{1000, time.Second},
	}
	for _, c := range cases {
		if got := p.Nominal(c.failures); got != c.want {
			t.Errorf("Nominal(%d) = %v, want %v", c.failures, got, c.want)
		}
	}
}

func TestNominalWithoutMaxNeverGrows(t *testing.T) {
	p := backoff.Policy{First: time.Second}
	if got := p.Nominal(10); got != time.Second {
		t.Fatalf("Nominal(10) = %v, want 1s", got)
	}
}

func TestDelayStaysInTheUpperHalfAndVaries(t *testing.T) {
	p := backoff.Policy{First: time.Second, Max: time.Minute}
	for failures := 1; failures <= 8; failures++ {
		nominal := p.Nominal(failures)
		seen := map[time.Duration]bool{}
		for range 200 {
			d := p.Delay(failures)
			if d < nominal/2 || d > nominal {
				t.Fatalf("Delay(%d) = %v, outside [%v, %v]", failures, d, nominal/2, nominal)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Fatalf("Delay(%d) gave the same wait 200 times: no jitter", failures)
		}
	}
}

func TestDelayOfAZeroPolicyIsZero(t *testing.T) {
	if got := (backoff.Policy{}).Delay(3); got != 0 {
		t.Fatalf("Delay = %v, want 0", got)
	}
}

// TestWaitEndsWithItsContext: a wait of an hour whose context has ended
// returns at once, saying it did not pass; a wait of nothing passes.
func TestWaitEndsWithItsContext(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, d := range []time.Duration{time.Hour, 0} {
		// Many times: a wait of nothing is as ready as the ended context,
		// and a select between the two would pick either at random.
		for range 100 {
			if backoff.Wait(ended, d) {
				t.Fatalf("a wait of %s whose context had ended passed", d)
			}
		}
	}
	if !backoff.Wait(context.Background(), 0) {
		t.Fatal("a wait of nothing did not pass")
	}
}
