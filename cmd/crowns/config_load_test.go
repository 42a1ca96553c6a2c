package main

import (
	"strings"
	"testing"
)

// loadConfigExpecting loads the configuration of env. With a problem, it
// checks that loading fails naming it and reports false; without, that
// loading succeeds, and returns the configuration.
func loadConfigExpecting(t *testing.T, env map[string]string, problem string) (config, bool) {
	t.Helper()
	cfg, err := loadConfig(func(name string) string { return env[name] })
	if problem != "" {
		if err == nil || !strings.Contains(err.Error(), problem) {
			t.Fatalf("loadConfig error %v, want %q", err, problem)
		}
		return config{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return cfg, true
}
