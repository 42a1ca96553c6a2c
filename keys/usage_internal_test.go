package keys

import "testing"

func TestKeyUseKeepsTheLatestOfOutOfOrderUses(t *testing.T) {
	// Concurrent verifications read the clock before recording, so a
	// later use may be recorded first.
	var use keyUse
	for _, at := range []int64{5, 3, 9, 7} {
		use.record(at)
	}
	if got := use.latest.Load(); got != 9 {
		t.Fatalf("latest use %d, want 9", got)
	}
}

func TestUsageLogForgetsIdleKeysOnlyOnceWritten(t *testing.T) {
	log := newUsageLog()
	log.track(1).record(10)
	pending := log.pending(100)
	if len(pending) != 1 {
		t.Fatalf("%d pending uses, want the unwritten one even though it is idle", len(pending))
	}
	pending[0].use.flushed = pending[0].latest
	if again := log.pending(100); len(again) != 0 {
		t.Fatalf("%d pending uses after the write, want none", len(again))
	}
	if tracker := log.track(1); tracker.latest.Load() != 0 {
		t.Fatal("an idle, written tracker was kept")
	}
}
