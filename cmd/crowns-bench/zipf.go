package main

import (
	"math/rand/v2"
	"sort"
)

// zipf draws ranks 0..n-1 with probability proportional to 1/(rank+1):
// Zipf's law with s = 1, which math/rand's Zipf (s > 1 only) cannot
// draw. It inverts the cumulative distribution by binary search over
// weights summed once.
type zipf struct {
	rng *rand.Rand
	// cumulative[k] is the probability of a rank at most k.
	cumulative []float64
}

// newZipf draws from n ranks (n ≥ 1) with rng.
func newZipf(rng *rand.Rand, n int) *zipf {
	cumulative := make([]float64, n)
	sum := 0.0
	for k := range n {
		sum += 1 / float64(k+1)
		cumulative[k] = sum
	}
	for k := range cumulative {
		cumulative[k] /= sum
	}
	cumulative[n-1] = 1 // no rounding gap at the top
	return &zipf{rng: rng, cumulative: cumulative}
}

// next is the next rank drawn.
func (z *zipf) next() int {
	u := z.rng.Float64()
	return sort.Search(len(z.cumulative), func(k int) bool { return z.cumulative[k] > u })
}
