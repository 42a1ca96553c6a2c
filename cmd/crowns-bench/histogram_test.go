package main

import (
	"testing"
	"time"
)

func TestLatencyBucketsAreContiguousAndNarrow(t *testing.T) {
	for b := range latencyBuckets - 1 {
		start, next := latencyBucketStart(b), latencyBucketStart(b+1)
		if next <= start {
			t.Fatalf("bucket %d starts at %d, the next at %d", b, start, next)
		}
		if got := latencyBucket(time.Duration(start)); got != b {
			t.Fatalf("the start of bucket %d falls in bucket %d", b, got)
		}
		if got := latencyBucket(time.Duration(next - 1)); got != b {
			t.Fatalf("the end of bucket %d falls in bucket %d", b, got)
		}
		if start >= latencySubBuckets && float64(next-start)/float64(start) > 1.0/latencySubBuckets+1e-9 {
			t.Fatalf("bucket %d is %d ns wide at %d ns", b, next-start, start)
		}
		if next > 1<<62 {
			break
		}
	}
}

func TestLatencyQuantiles(t *testing.T) {
	var h, other latencyHistogram
	for i := 1; i <= 990; i++ {
		h.record(time.Duration(i) * time.Microsecond)
	}
	for range 10 {
		other.record(50 * time.Millisecond)
	}
	h.merge(&other)
	tests := []struct {
		q    float64
		want time.Duration
	}{
		{0.5, 500 * time.Microsecond},
		{0.99, 990 * time.Microsecond},
		{0.999, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		got := h.quantile(tt.q)
		if diff := float64(got-tt.want) / float64(tt.want); diff < -0.04 || diff > 0.04 {
			t.Errorf("quantile %g = %s, want %s within 4 %%", tt.q, got, tt.want)
		}
	}
	var empty latencyHistogram
	if empty.quantile(0.5) != 0 {
		t.Fatal("an empty histogram has a median")
	}
}
