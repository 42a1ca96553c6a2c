package api

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

// BenchmarkPlainFormAdmission replays, on the cache's clock, requests
// spread by Zipf's law (s = 1) over 1,000 battles and 1,000 histories
// (15 kB compressed, 150 kB plain) in a 40 MiB cache, as traffic moves
// from one route to the other, at 60 and at 6,000 requests a second, and
// reports the share of identity requests that found a plain form kept,
// phase by phase (%plain-...). It measures the admission rule of
// cacheShard, not speed:
//
//	go test -run '^$' -bench PlainFormAdmission ./api
func BenchmarkPlainFormAdmission(b *testing.B) {
	for _, rate := range []int{60, 6000} {
		b.Run(fmt.Sprintf("%d/s", rate), func(b *testing.B) {
			for b.Loop() {
				for _, phase := range simulatePlainAdmission(b, rate) {
					b.ReportMetric(phase.share, "%plain-"+phase.name)
				}
			}
		})
	}
}

type phaseShare struct {
	name  string
	share float64
}

func simulatePlainAdmission(b *testing.B, requestsPerSecond int) []phaseShare {
	clock := models.NewManualClock(time.Unix(0, 0))
	cache := newResponseCache(time.Hour, 40<<20, clock)
	plain := make([]byte, 150_000)
	for _, route := range []string{"battles", "history"} {
		for i := range 1000 {
			answer := &cachedAnswer{gzipped: make([]byte, 15_000), length: len(plain), etag: `"e"`}
			cache.put(cacheSlot{key: fmt.Sprint(route, i), ttl: 24 * time.Hour}, answer, 0)
		}
	}
	ranks := newZipfRanks(1000)
	rng := rand.New(rand.NewPCG(1, 2))
	var shares []phaseShare
	phase := func(name, route string, identity bool, seconds int) {
		var kept, asked int
		for range seconds * requestsPerSecond {
			clock.Advance(time.Second / time.Duration(requestsPerSecond))
			key := fmt.Sprint(route, ranks.draw(rng))
			answer, ok := cache.getString(key, clock.Now())
			if !ok {
				b.Fatalf("%s is not cached", key)
			}
			if !identity {
				continue
			}
			asked++
			if answer.plain != nil {
				kept++
			} else if cache.wouldKeepPlain(key, answer, clock.Now()) {
				cache.replace(key, answer, answer.withPlain(plain), clock.Now())
			}
		}
		if identity {
			shares = append(shares, phaseShare{name: name, share: 100 * float64(kept) / float64(asked)})
		}
	}
	phase("", "battles", false, 25)
	phase("battles", "battles", true, 25)
	phase("", "history", false, 25)
	phase("history-after-shift", "history", true, 25)
	phase("history-steady", "history", true, 300)
	phase("battles-after-shift", "battles", true, 60)
	return shares
}

// zipfRanks is the cumulative distribution of Zipf's law with s = 1 over
// n ranks.
type zipfRanks []float64

func newZipfRanks(n int) zipfRanks {
	cumulative := make(zipfRanks, n)
	total := 0.0
	for k := range cumulative {
		total += 1 / float64(k+1)
		cumulative[k] = total
	}
	for k := range cumulative {
		cumulative[k] /= total
	}
	return cumulative
}

// draw picks a rank.
func (z zipfRanks) draw(rng *rand.Rand) int {
	return min(sort.SearchFloat64s(z, rng.Float64()), len(z)-1)
}
