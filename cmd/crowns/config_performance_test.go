package main

import (
	"testing"
	"time"
)

func TestPerformanceSettings(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		historyTTL time.Duration
		accessLog  bool
		gcPercent  int
		problem    string
	}{
		{"defaults", nil, time.Minute, true, 50, ""},
		{"set", map[string]string{"CROWNS_HISTORY_CACHE_TTL": "30s", "CROWNS_ACCESS_LOG": "off", "CROWNS_GC_PERCENT": "100"}, 30 * time.Second, false, 100, ""},
		{"history cache off", map[string]string{"CROWNS_HISTORY_CACHE_TTL": "0"}, 0, true, 50, ""},
		{"negative history TTL", map[string]string{"CROWNS_HISTORY_CACHE_TTL": "-1s"}, 0, false, 0, "CROWNS_HISTORY_CACHE_TTL must not be negative"},
		{"access log neither on nor off", map[string]string{"CROWNS_ACCESS_LOG": "maybe"}, 0, false, 0, `CROWNS_ACCESS_LOG must be on or off, got "maybe"`},
		{"gc percent too low", map[string]string{"CROWNS_GC_PERCENT": "5"}, 0, false, 0, `CROWNS_GC_PERCENT must be a whole number from 10 to 1000, got "5"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ok := loadConfigExpecting(t, tt.env, tt.problem)
			if !ok {
				return
			}
			if cfg.HistoryCacheTTL != tt.historyTTL || cfg.AccessLog != tt.accessLog || cfg.GCPercent != tt.gcPercent {
				t.Fatalf("history TTL %s, access log %v, gc percent %d; want %s, %v, %d",
					cfg.HistoryCacheTTL, cfg.AccessLog, cfg.GCPercent, tt.historyTTL, tt.accessLog, tt.gcPercent)
			}
		})
	}
}

func TestMemoryLimitSetting(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    int64
		problem string
	}{
		{"default: the cache budget and 64 MiB", nil, (40 + 64) << 20, ""},
		{"default beside a larger cache", map[string]string{"CROWNS_CACHE_MB": "512"}, (512 + 64) << 20, ""},
		{"set", map[string]string{"CROWNS_MEMORY_LIMIT_MB": "512", "CROWNS_CACHE_MB": "256"}, 512 << 20, ""},
		{"no room beside the cache", map[string]string{"CROWNS_MEMORY_LIMIT_MB": "100", "CROWNS_CACHE_MB": "80"}, 0,
			"CROWNS_MEMORY_LIMIT_MB must leave at least 32 MiB beside CROWNS_CACHE_MB"},
		{"not a number", map[string]string{"CROWNS_MEMORY_LIMIT_MB": "lots"}, 0,
			`CROWNS_MEMORY_LIMIT_MB must be a whole number from 32 to 1048576, got "lots"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ok := loadConfigExpecting(t, tt.env, tt.problem)
			if ok && cfg.MemoryLimit != tt.want {
				t.Fatalf("memory limit %d, want %d", cfg.MemoryLimit, tt.want)
			}
		})
	}
}
