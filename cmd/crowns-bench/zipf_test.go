package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestZipfDrawsEachRankInProportionToItsInverse(t *testing.T) {
	for _, n := range []int{1, 2, 10, 1000} {
		z := newZipf(rand.New(rand.NewPCG(1, 2)), n)
		const draws = 400_000
		counts := make([]int, n)
		for range draws {
			k := z.next()
			if k < 0 || k >= n {
				t.Fatalf("n=%d: rank %d out of range", n, k)
			}
			counts[k]++
		}
		harmonic := 0.0
		for k := 1; k <= n; k++ {
			harmonic += 1 / float64(k)
		}
		// The ranks drawn often enough to judge: expected count ≥ 1,000,
		// within 5 standard deviations of a binomial count.
		for k := range min(n, 50) {
			p := 1 / (float64(k+1) * harmonic)
			want := p * draws
			if want < 1000 {
				break
			}
			if sd := math.Sqrt(draws * p * (1 - p)); math.Abs(float64(counts[k])-want) > 5*sd {
				t.Errorf("n=%d: rank %d drawn %d times, want %.0f ± %.0f", n, k, counts[k], want, 5*sd)
			}
		}
		// Zipf, not uniform: rank 0 is drawn twice as often as rank 1.
		if n >= 2 {
			if ratio := float64(counts[0]) / float64(counts[1]); ratio < 1.9 || ratio > 2.1 {
				t.Errorf("n=%d: rank 0 / rank 1 = %.2f, want 2", n, ratio)
			}
		}
	}
}
