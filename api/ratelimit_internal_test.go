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

// TestRateLimiterSweepDropsOnlyFullBuckets: a sweep forgets the buckets
// that have refilled and keeps the others with what they hold.
func TestRateLimiterSweepDropsOnlyFullBuckets(t *testing.T) {
	l := newRateLimiter(1.0/60, 3)                            // a token a minute
	const idle, busy = int64(1), int64(1 + rateLimiterShards) // one shard
	shard := &l.shards[1]
	l.take(idle, rateStart)
	for range 3 {
		l.take(busy, rateStart)
	}
	if n := len(*shard.buckets.Load()); n != 2 {
		t.Fatalf("%d buckets before the sweep, want 2", n)
	}
	// Three minutes on, the idle key's bucket has been full for two (one
	// token a minute), the busy key's lacks none but has been full for
	// less than sweepEvery.
	later := rateStart.Add(sweepEvery + 2*time.Minute - time.Second)
	l.sweep(shard, later.UnixNano())
	buckets := *shard.buckets.Load()
	if _, ok := buckets[idle]; ok {
		t.Fatal("the full bucket is still indexed after the sweep")
	}
	if _, ok := buckets[busy]; !ok {
		t.Fatal("the sweep dropped a bucket that was not full")
	}
	if d := l.take(busy, later); !d.allowed || d.remaining != 1 {
		t.Fatalf("busy key after the sweep: %+v, want 2 of its 3 tokens back, then one spent", d)
	}
	if d := l.take(idle, later); !d.allowed || d.remaining != 2 {
		t.Fatalf("idle key after the sweep: %+v, want a full bucket", d)
	}
}

// TestRateLimiterSweepsWhileTaking takes tokens of the same keys from
// several goroutines in lockstep while sweeps retire their buckets (run it
// under -race): a bucket of one token refilling in one step is full at
// every step and swept at the next but one, yet no key gets more than its
// one token per step.
func TestRateLimiterSweepsWhileTaking(t *testing.T) {
	const steps, keys, goroutines = 100, 16, 4
	step := sweepEvery/2 + time.Second
	l := newRateLimiter(float64(time.Second)/float64(step), 1)
	var allowed [steps][keys]atomic.Int64
	var stepDone [steps]sync.WaitGroup
	for s := range stepDone {
		stepDone[s].Add(goroutines)
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range steps * 4 {
				s, key := i/4, (i+g)%keys
				if l.take(int64(key), rateStart.Add(time.Duration(s)*step)).allowed {
					allowed[s][key].Add(1)
				}
				if i%4 == 3 {
					stepDone[s].Done()
					stepDone[s].Wait()
				}
			}
		}()
	}
	wg.Wait()
	granted := 0
	for s := range allowed {
		for key := range allowed[s] {
			n := allowed[s][key].Load()
			if n > 1 {
				t.Fatalf("step %d, key %d: %d requests allowed, want at most 1", s, key, n)
			}
			granted += int(n)
		}
	}
	// Every key asked at a step gets its token: 7 keys a step (4
	// goroutines, 4 turns each, overlapping).
	if want := steps * 7; granted != want {
		t.Fatalf("%d tokens granted, want %d", granted, want)
	}
}
