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
// (15 kB compressed, 19 kB packed, 150 kB plain) in a 40 MiB cache, as
// traffic moves from one route to the other, at 60 and at 6,000 requests
// a second, and reports how identity requests were served, phase by
// phase: from a plain form kept (%plain-...), and inflated because the
// answer had neither a plain nor a packed form (%inflated-...); the rest
// were unpacked. It measures the admission rules of cacheShard, not
// speed:
//
//	go test -run '^$' -bench PlainFormAdmission ./api
func BenchmarkPlainFormAdmission(b *testing.B) {
	for _, rate := range []int{60, 6000} {
		b.Run(fmt.Sprintf("%d/s", rate), func(b *testing.B) {
			for b.Loop() {
				for _, phase := range simulatePlainAdmission(b, rate) {
					b.ReportMetric(phase.plain, "%plain-"+phase.name)
					b.ReportMetric(phase.inflated, "%inflated-"+phase.name)
					b.ReportMetric(phase.missed, "%missed-"+phase.name)
				}
			}
		})
	}
}

// phaseShare is how a phase's identity requests were served, in percent,
// and the share of its requests that did not find their answer cached.
type phaseShare struct {
	name                    string
	plain, inflated, missed float64
}

func simulatePlainAdmission(b *testing.B, requestsPerSecond int) []phaseShare {
	clock := models.NewManualClock(time.Unix(0, 0))
	cache := newResponseCache(time.Hour, 40<<20, clock)
	plain, packed := make([]byte, 150_000), make([]byte, 19_000)
	compressed := func(key string) *cachedAnswer {
		return &cachedAnswer{gzipped: make([]byte, 15_000), length: len(plain), etag: `"` + key + `"`}
	}
	for _, route := range []string{"battles", "history"} {
		for i := range 1000 {
			key := fmt.Sprint(route, i)
			cache.put(cachePlace{key: key, ttl: 24 * time.Hour}, compressed(key), 0)
		}
	}
	ranks := newZipfRanks(1000)
	rng := rand.New(rand.NewPCG(1, 2))
	var shares []phaseShare
	phase := func(name, route string, identity bool, seconds int) {
		var kept, inflated, asked, missed int
		for range seconds * requestsPerSecond {
			clock.Advance(time.Second / time.Duration(requestsPerSecond))
			key := fmt.Sprint(route, ranks.draw(rng))
			answer, ok := cache.getString(key, clock.Now())
			if !ok {
				missed++
				answer = compressed(key)
				cache.put(cachePlace{key: key, ttl: 24 * time.Hour}, answer, 0)
			}
			if !identity {
				continue
			}
			asked++
			switch {
			case answer.plain != nil:
				kept++
			case answer.packed == nil:
				inflated++
				cache.keepPacked(key, answer, answer.withPacked(packed), clock.Now())
			case cache.wouldKeepPlain(key, answer, clock.Now()):
				cache.replace(key, answer, answer.withPlain(plain), clock.Now())
			}
		}
		if identity {
			shares = append(shares, phaseShare{name: name,
				plain: 100 * float64(kept) / float64(asked), inflated: 100 * float64(inflated) / float64(asked),
				missed: 100 * float64(missed) / float64(asked)})
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
