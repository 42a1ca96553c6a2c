package main

import "testing"

func TestSnapshotFetchSettings(t *testing.T) {
	tests := []struct {
		name        string
		env         map[string]string
		rate        float64
		concurrency int
		problem     string
	}{
		{"defaults", nil, 5, 4, ""},
		{"set", map[string]string{"CROWNS_SNAPSHOT_RATE_PER_SECOND": "2.5", "CROWNS_SNAPSHOT_CONCURRENCY": "8"}, 2.5, 8, ""},
		{"rate zero", map[string]string{"CROWNS_SNAPSHOT_RATE_PER_SECOND": "0"}, 0, 0, "CROWNS_SNAPSHOT_RATE_PER_SECOND must be greater than 0 and at most 1000"},
		{"rate too high", map[string]string{"CROWNS_SNAPSHOT_RATE_PER_SECOND": "1001"}, 0, 0, "CROWNS_SNAPSHOT_RATE_PER_SECOND must be greater than 0 and at most 1000"},
		{"rate not a number", map[string]string{"CROWNS_SNAPSHOT_RATE_PER_SECOND": "fast"}, 0, 0, `CROWNS_SNAPSHOT_RATE_PER_SECOND must be a number, got "fast"`},
		{"concurrency zero", map[string]string{"CROWNS_SNAPSHOT_CONCURRENCY": "0"}, 0, 0, `CROWNS_SNAPSHOT_CONCURRENCY must be a whole number from 1 to 256, got "0"`},
		{"concurrency past its bound", map[string]string{"CROWNS_SNAPSHOT_CONCURRENCY": "257", "CROWNS_UPSTREAM_CONCURRENCY": "1024"}, 0, 0,
			`CROWNS_SNAPSHOT_CONCURRENCY must be a whole number from 1 to 256, got "257"`},
		{"concurrency above the upstream's", map[string]string{"CROWNS_SNAPSHOT_CONCURRENCY": "20", "CROWNS_UPSTREAM_CONCURRENCY": "16"}, 0, 0,
			"CROWNS_SNAPSHOT_CONCURRENCY must not exceed CROWNS_UPSTREAM_CONCURRENCY"},
		{"claimed jobs would wait past their lease", map[string]string{"CROWNS_SNAPSHOT_CONCURRENCY": "16", "CROWNS_SNAPSHOT_RATE_PER_SECOND": "0.5"}, 0, 0,
			"CROWNS_SNAPSHOT_CONCURRENCY / CROWNS_SNAPSHOT_RATE_PER_SECOND must be at most 27.5s with CROWNS_UPSTREAM_TIMEOUT 10s"},
		{"slow but within the lease", map[string]string{"CROWNS_SNAPSHOT_CONCURRENCY": "13", "CROWNS_SNAPSHOT_RATE_PER_SECOND": "0.5"}, 0.5, 13, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ok := loadConfigExpecting(t, tt.env, tt.problem)
			if !ok {
				return
			}
			if cfg.SnapshotRatePerSecond != tt.rate || cfg.SnapshotConcurrency != tt.concurrency {
				t.Fatalf("rate %g, concurrency %d; want %g, %d", cfg.SnapshotRatePerSecond, cfg.SnapshotConcurrency, tt.rate, tt.concurrency)
			}
		})
	}
}

func TestRateLimitBucketMustFillWithinACentury(t *testing.T) {
	const problem = "CROWNS_RATE_LIMIT_BURST / CROWNS_RATE_LIMIT_PER_SECOND (the seconds an empty bucket takes to fill) must be at most 100 years"
	loadConfigExpecting(t, map[string]string{"CROWNS_RATE_LIMIT_PER_SECOND": "0.000001", "CROWNS_RATE_LIMIT_BURST": "1000000"}, problem)
	cfg, ok := loadConfigExpecting(t, map[string]string{"CROWNS_RATE_LIMIT_PER_SECOND": "0.001", "CROWNS_RATE_LIMIT_BURST": "1000000"}, "")
	if ok && (cfg.RateLimitPerSecond != 0.001 || cfg.RateLimitBurst != 1_000_000) {
		t.Fatalf("rate %g, burst %d; want 0.001, 1000000", cfg.RateLimitPerSecond, cfg.RateLimitBurst)
	}
}
