package official_test

import (
	"testing"
	"time"

	"github.com/crownsdev/crowns/upstream/official"
)

func TestTimestamps(t *testing.T) {
	tests := []struct {
		raw  string
		want time.Time
		ok   bool
	}{
		{"20220520T052356.000Z", time.Date(2022, 5, 20, 5, 23, 56, 0, time.UTC), true},
		{"20171227T034657.000Z", time.Date(2017, 12, 27, 3, 46, 57, 0, time.UTC), true},
		{"", time.Time{}, false},
		{"2022-05-20T05:23:56Z", time.Time{}, false},
	}
	for _, tt := range tests {
		got, ok := official.ParseTime(tt.raw)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("ParseTime(%q) = %v, %v; want %v, %v", tt.raw, got, ok, tt.want, tt.ok)
		}
		if tt.ok && official.FormatTime(got.In(time.FixedZone("CEST", 7200))) != tt.raw {
			t.Errorf("FormatTime does not give back %q", tt.raw)
		}
	}
}
