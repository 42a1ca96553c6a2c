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

// TestRateLimiterSweepDropsOnlyLongFullBuckets: a sweep forgets the
// buckets that have been full for idleBucketLimit and keeps the others
// with what they hold.
func TestRateLimiterSweepDropsOnlyLongFullBuckets(t *testing.T) {
	l := newRateLimiter(1.0/60, 3)       // a token a minute
	const idle, busy = 1, 1 + rateShards // one shard
	l.take(idle, rateStart)
	for range 3 {
		l.take(busy, rateStart)
	}
	// Three minutes on, the idle key's bucket has been full for two, the
	// busy key's for less than idleBucketLimit.
	later := rateStart.Add(idleBucketLimit + 2*time.Minute - time.Second)
	sh := &l.shards[idle%rateShards]
	sh.mu.Lock()
	sh.sweep(later.UnixNano())
	left := len(sh.full)
	sh.mu.Unlock()
	if left != 1 {
		t.Fatalf("%d buckets after the sweep, want the busy key's only", left)
	}
	if d := l.take(busy, later); !d.allowed || d.remaining != 1 {
		t.Fatalf("busy key after the sweep: %+v, want 2 of its 3 tokens back, then one spent", d)
	}
	if d := l.take(idle, later); !d.allowed || d.remaining != 2 {
		t.Fatalf("idle key after the sweep: %+v, want a full bucket", d)
	}
}

// TestRateLimiterSweepsAsKeysComeAndGo: many keys that each spend a
// token and then stay away do not pile up: once their buckets are full
// again, the next sweeps drop them.
func TestRateLimiterSweepsAsKeysComeAndGo(t *testing.T) {
	l := newRateLimiter(10, 20)
	const keys = 20 * minSweep
	for i := range int64(keys) {
		l.take(i, rateStart)
	}
	later := rateStart.Add(idleBucketLimit + time.Minute)
	for i := range int64(keys) {
		l.take(keys+i, later)
	}
	total := 0
	for i := range l.shards {
		total += len(l.shards[i].full)
	}
	if total > keys+rateShards*minSweep {
		t.Fatalf("%d buckets kept for %d keys in use: the idle ones were not swept", total, keys)
	}
}

// TestRateLimiterSpendsEachTokenOnceUnderConcurrency spends the one token
// of many keys, each asked for several times from several goroutines (run
// it under -race): every key gets exactly its one token.
func TestRateLimiterSpendsEachTokenOnceUnderConcurrency(t *testing.T) {
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
