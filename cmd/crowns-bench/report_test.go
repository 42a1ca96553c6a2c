package main

import (
	"strings"
	"testing"
)

// TestTheMemoryTargetIsInMillionsOfBytes: the 150 MB is 150
// million bytes; 150 MiB (157,286,400 bytes) misses it, and the report
// shows both units.
func TestTheMemoryTargetIsInMillionsOfBytes(t *testing.T) {
	for _, tt := range []struct {
		resident int64
		met      bool
	}{
		{149_999_999, true},
		{150_000_000, true},
		{150_000_001, false},
		{150 << 20, false},
	} {
		r := &report{PeakResidentBytes: tt.resident}
		r.judge()
		memory := r.Targets[len(r.Targets)-1]
		if !strings.HasPrefix(memory.Target, "resident memory") || memory.Met != tt.met {
			t.Errorf("%d bytes: %q met %v, want %v", tt.resident, memory.Target, memory.Met, tt.met)
		}
	}
	if got, want := megabytes(150<<20), "157.3 MB (150.0 MiB)"; got != want {
		t.Errorf("megabytes(150 MiB) = %q, want %q", got, want)
	}
}

// TestTheRatioShowsTheSpreadOfItsRounds: a row of several rounds shows
// the lowest and highest ratio of its rounds beside the run's own.
func TestTheRatioShowsTheSpreadOfItsRounds(t *testing.T) {
	for _, tt := range []struct {
		ratios []float64
		want   string
	}{
		{nil, ""},
		{[]float64{0.8}, ""},
		{[]float64{0.83, 0.74, 0.79}, " [0.74–0.83]"},
	} {
		if got := spread(tt.ratios); got != tt.want {
			t.Errorf("spread(%v) = %q, want %q", tt.ratios, got, tt.want)
		}
	}
}
