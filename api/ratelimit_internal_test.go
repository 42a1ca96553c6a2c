package api

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var rateStart = time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC)

func TestRateLimiterRefillsOneTokenPerInterval(t *testing.T) {
	l := newRateLimiter(4, 2) // a token every 250 ms, two at most
	for i, want := range []int{1, 0} {
		d := l.take(7, rateStart)
		if !d.allowed || d.remaining != want {
			t.Fatalf("take %d: %+v, want allowed with %d remaining", i, d, want)
		}
		if wantReset := time.Duration(i+1) * 250 * time.Millisecond; d.resetAfter != wantReset {
			t.Fatalf("take %d: reset after %v, want %v", i, d.resetAfter, wantReset)
		}
	}
	refused := l.take(7, rateStart.Add(100*time.Millisecond))
	if refused.allowed || refused.remaining != 0 || refused.retryAfter != 150*time.Millisecond || refused.resetAfter != 400*time.Millisecond {
		t.Fatalf("empty bucket: %+v, want refused, retry after 150ms, full after 400ms", refused)
	}
	if d := l.take(7, rateStart.Add(250*time.Millisecond)); !d.allowed || d.remaining != 0 {
		t.Fatalf("one interval later: %+v, want one token", d)
	}
	if d := l.take(7, rateStart.Add(250*time.Millisecond)); d.allowed {
		t.Fatalf("the same moment again: %+v, want refused", d)
	}
	if d := l.take(7, rateStart.Add(time.Hour)); !d.allowed || d.remaining != 1 {
		t.Fatalf("an hour later: %+v, want a full bucket of 2", d)
	}
}

// TestRateLimiterSpendsEachTokenOnce: concurrent requests of one key at
// one moment get exactly the burst between them.
func TestRateLimiterSpendsEachTokenOnce(t *testing.T) {
	const burst, goroutines, each = 50, 8, 100
	l := newRateLimiter(1, burst)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if l.take(42, rateStart).allowed {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if got := allowed.Load(); got != burst {
		t.Fatalf("%d requests allowed, want the burst of %d", got, burst)
	}
}

// TestRateLimiterRebuildDropsOnlyLongFullBuckets: a rebuild forgets the
// buckets that have been full for idleBucketLimit and moves the others with
// what they hold.
func TestRateLimiterRebuildDropsOnlyLongFullBuckets(t *testing.T) {
	l := newRateLimiter(1.0/60, 3) // a token a minute
	const idle, busy = 1, 2
	l.take(idle, rateStart)
	for range 3 {
		l.take(busy, rateStart)
	}
	// Three minutes on, the idle key's bucket has been full for two, the
	// busy key's for less than idleBucketLimit.
	later := rateStart.Add(idleBucketLimit + 2*time.Minute - time.Second)
	old := l.table.Load()
	l.rebuild(old, later.UnixNano())
	table := l.table.Load()
	if table == old {
		t.Fatal("the rebuild kept the table")
	}
	if got := table.used.Load(); got != 1 {
		t.Fatalf("%d buckets after the rebuild, want the busy key's only", got)
	}
	if d := l.take(busy, later); !d.allowed || d.remaining != 1 {
		t.Fatalf("busy key after the rebuild: %+v, want 2 of its 3 tokens back, then one spent", d)
	}
	if d := l.take(idle, later); !d.allowed || d.remaining != 2 {
		t.Fatalf("idle key after the rebuild: %+v, want a full bucket", d)
	}
}

// TestRateLimiterGrowsWhileTaking spends the one token of many more keys
// than the first table holds, each asked for several times from several
// goroutines (run it under -race): the table is rebuilt again and again
// under the requests, yet every key gets exactly its one token.
func TestRateLimiterGrowsWhileTaking(t *testing.T) {
	const keys, goroutines, asks = 5000, 4, 3
	l := newRateLimiter(1e-9, 1) // no refill within the test
	var allowed [keys + 1]atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range keys * asks {
				key := int64((i*7+g*1013)%keys + 1)
				if l.take(key, rateStart).allowed {
					allowed[key].Add(1)
				}
			}
		}()
	}
	wg.Wait()
	for key := 1; key <= keys; key++ {
		if got := allowed[key].Load(); got != 1 {
			t.Fatalf("key %d: %d requests allowed, want its one token", key, got)
		}
	}
	if got := len(l.table.Load().slots); got <= minRateSlots {
		t.Fatalf("the table has %d slots for %d keys: it never grew", got, keys)
	}
}

// TestARebuiltTableTakesNothingMore: once rebuilt, the old table gives a
// request that still holds it no slot for a new key and no token from a
// moved bucket, so nothing is spent where the new table would not see it.
func TestARebuiltTableTakesNothingMore(t *testing.T) {
	l := newRateLimiter(1, 5)
	l.take(1, rateStart)
	old := l.table.Load()
	slot := old.find(1)
	l.rebuild(old, rateStart.UnixNano())
	if got := old.find(2); got != nil {
		t.Fatal("the old table gave a new key a slot after the rebuild")
	}
	if _, ok := l.spend(slot, rateStart.UnixNano()); ok {
		t.Fatal("a moved bucket of the old table spent a token")
	}
	if d := l.take(1, rateStart); !d.allowed || d.remaining != 3 {
		t.Fatalf("after the rebuild: %+v, want the bucket moved with 4 tokens, then one spent", d)
	}
}

// TestRateLimiterOfSlowestSettingsDoesNotOverflow: a bucket that takes
// the longest allowed time to fill still spends its tokens one by one.
func TestRateLimiterOfSlowestSettingsDoesNotOverflow(t *testing.T) {
	const burst = 1_000_000
	l := newRateLimiter(burst/MaxRateFill.Seconds(), burst)
	for i, want := range []int{burst - 1, burst - 2} {
		if d := l.take(1, rateStart); !d.allowed || d.remaining != want || d.resetAfter <= 0 {
			t.Fatalf("take %d: %+v, want allowed with %d left", i, d, want)
		}
	}
}
