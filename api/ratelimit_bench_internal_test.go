package api

import (
	"testing"
	"time"
)

// BenchmarkRateLimiterTake spends tokens of 10,000 keys in turn, from
// parallel goroutines, as concurrent requests do.
func BenchmarkRateLimiterTake(b *testing.B) {
	limiter := newRateLimiter(10, 20)
	const keys = 10_000
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var key int64
		for pb.Next() {
			key = (key + 7919) % keys
			limiter.take(key, time.Now())
		}
	})
}
