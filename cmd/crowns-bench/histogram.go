package main

import (
	"math"
	"math/bits"
	"time"
)

// latencySubBuckets is how many buckets split each doubling of latency:
// 32, so a bucket is at most about 3 % wide.
const (
	latencySubBucketBits = 5
	latencySubBuckets    = 1 << latencySubBucketBits
	latencyBuckets       = (64 - latencySubBucketBits + 1) * latencySubBuckets
)

// latencyHistogram counts latencies in log-linear buckets: exact below
// 32 ns, then 32 buckets per doubling. It takes constant memory however
// many requests a run makes; quantiles are read to about 3 %.
type latencyHistogram struct {
	counts [latencyBuckets]uint64
	total  uint64
}

// record counts one latency.
func (h *latencyHistogram) record(d time.Duration) {
	h.counts[latencyBucket(d)]++
	h.total++
}

// merge adds the counts of other.
func (h *latencyHistogram) merge(other *latencyHistogram) {
	for i, n := range other.counts {
		h.counts[i] += n
	}
	h.total += other.total
}

// quantile is the latency below which the fraction q of the recorded
// latencies lie (the middle of its bucket); 0 without records.
func (h *latencyHistogram) quantile(q float64) time.Duration {
	if h.total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(h.total)))
	rank = min(max(rank, 1), h.total)
	var seen uint64
	for b, n := range h.counts {
		if seen += n; seen >= rank {
			low, high := latencyBucketStart(b), latencyBucketStart(b+1)
			return time.Duration(low + (high-low)/2)
		}
	}
	return time.Duration(latencyBucketStart(latencyBuckets))
}

// latencyBucket is the bucket of d.
func latencyBucket(d time.Duration) int {
	ns := uint64(max(d, 0))
	if ns < latencySubBuckets {
		return int(ns)
	}
	shift := bits.Len64(ns) - 1 - latencySubBucketBits
	return (shift+1)<<latencySubBucketBits + int((ns>>shift)&(latencySubBuckets-1))
}

// latencyBucketStart is the smallest latency, in nanoseconds, of bucket b.
func latencyBucketStart(b int) uint64 {
	if b < latencySubBuckets {
		return uint64(b)
	}
	shift := b>>latencySubBucketBits - 1
	return uint64(latencySubBuckets+b&(latencySubBuckets-1)) << shift
}
