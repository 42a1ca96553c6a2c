package api

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

func TestConcurrentMissesShareOneCall(t *testing.T) {
	cache := newResponseCache(time.Minute, 1<<20, models.NewManualClock(time.Unix(0, 0)))
	var calls atomic.Int32
	release := make(chan struct{})
	produce := func(context.Context) (*cachedAnswer, error) {
		calls.Add(1)
		<-release
		return newCachedAnswer([]byte(`[]`)), nil
	}
	const callers = 16
	var wg sync.WaitGroup
	hits := make(chan bool, callers)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, hit, err := cache.fetch(context.Background(), "k", time.Second, produce)
			if err != nil {
				t.Error(err)
			}
			hits <- hit
		}()
	}
	// Every caller is blocked on the one shared call before it is let go.
	deadline := time.Now().Add(time.Minute)
	for cache.waiting.Load() < callers {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d callers reached the shared call", cache.waiting.Load(), callers)
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	close(hits)
	for hit := range hits {
		if hit {
			t.Fatal("a caller that waited on the shared call reported a cache hit")
		}
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d concurrent misses produced %d times, want 1", callers, n)
	}
	if _, hit, _ := cache.fetch(context.Background(), "k", time.Second, produce); !hit {
		t.Fatal("the shared answer was not cached")
	}
}

func TestFailuresAreNotCached(t *testing.T) {
	cache := newResponseCache(time.Minute, 1<<20, models.NewManualClock(time.Unix(0, 0)))
	calls := 0
	failing := func(context.Context) (*cachedAnswer, error) {
		calls++
		return nil, errors.New("upstream down")
	}
	for range 2 {
		if _, _, err := cache.fetch(context.Background(), "k", time.Second, failing); err == nil {
			t.Fatal("no error")
		}
	}
	if calls != 2 {
		t.Fatalf("a failure was served from the cache (%d calls)", calls)
	}
}

func TestCacheStaysWithinItsBudget(t *testing.T) {
	clock := models.NewManualClock(time.Unix(0, 0))
	cache := newResponseCache(time.Minute, 10_000, clock)
	body := make([]byte, 1000)
	for i := range 20 {
		cache.put(string(rune('a'+i)), newCachedAnswer(body))
		if cache.used > cache.budget {
			t.Fatalf("used %d bytes of a %d budget", cache.used, cache.budget)
		}
	}
	if _, ok := cache.get("a"); ok {
		t.Fatal("the least recently used entry survived")
	}
	if _, ok := cache.get(string(rune('a' + 19))); !ok {
		t.Fatal("the newest entry was evicted")
	}
	cache.put("huge", newCachedAnswer(make([]byte, 20_000)))
	if _, ok := cache.get("huge"); ok {
		t.Fatal("an answer larger than the budget was stored")
	}
}
