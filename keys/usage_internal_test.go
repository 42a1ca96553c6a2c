package keys

import (
	"testing"
	"time"
)

// useAt is a use time of the tests, in Unix nanoseconds.
func useAt(seconds float64) int64 {
	return time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC).UnixNano() + int64(seconds*float64(time.Second))
}

func TestKeyUseKeepsTheLatestOfOutOfOrderUses(t *testing.T) {
	// Concurrent verifications read the clock before recording, so a
	// later use may be recorded first.
	var use keyUse
	for _, at := range []float64{5, 3, 9, 7} {
		use.record(useAt(at))
	}
	if got := use.latest.Load(); got != useAt(9) {
		t.Fatalf("latest use %d, want %d", got, useAt(9))
	}
}

func TestKeyUseIsKeptToTheSecond(t *testing.T) {
	var use keyUse
	use.record(useAt(10))
	use.record(useAt(10.9))
	if got := use.latest.Load(); got != useAt(10) {
		t.Fatalf("a use within a second of the last one moved it to %d, want %d", got, useAt(10))
	}
	use.record(useAt(11))
	if got := use.latest.Load(); got != useAt(11) {
		t.Fatalf("a use a second later left %d, want %d", got, useAt(11))
	}
}

func TestUsageLogForgetsIdleKeysOnlyOnceWritten(t *testing.T) {
	log := newUsageLog()
	log.track(1).record(useAt(10))
	pending := log.pending(useAt(100))
	if len(pending) != 1 {
		t.Fatalf("%d pending uses, want the unwritten one even though it is idle", len(pending))
	}
	pending[0].use.flushed = pending[0].latest
	if again := log.pending(useAt(100)); len(again) != 0 {
		t.Fatalf("%d pending uses after the write, want none", len(again))
	}
	if tracker := log.track(1); tracker.latest.Load() != 0 {
		t.Fatal("an idle, written tracker was kept")
	}
}
