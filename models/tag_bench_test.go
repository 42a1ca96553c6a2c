package models_test

import (
	"testing"

	"github.com/crownsdev/crowns/models"
)

// BenchmarkNormalizeTag is the tag check of every request with a tag in
// its path, as callers write them: bare, with '#', escaped, lower-case.
func BenchmarkNormalizeTag(b *testing.B) {
	for _, raw := range []string{"2PQ8Y0L9C", "#2PQ8Y0L9C", "%232pq8yol9c"} {
		b.Run(raw, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := models.NormalizeTag(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
