package main

import (
	"bytes"
	"log/slog"
	"slices"
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

// TestConfigurationSummaryNamesEveryVariableOnce: the start-up summary
// shows each setting under its environment variable's name, every
// variable the configuration reads exactly once, and no other name.
func TestConfigurationSummaryNamesEveryVariableOnce(t *testing.T) {
	cfg, err := loadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cfg.summary() {
		names = append(names, s.Key)
	}
	slices.Sort(names)
	if known := knownVariables(); !slices.Equal(names, known) {
		t.Errorf("summary names\n%v\nwant the variables read\n%v", names, known)
	}
	var out bytes.Buffer
	logConfiguration(&out, slog.New(slog.DiscardHandler), cfg)
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
		if name, _, _ := strings.Cut(strings.TrimSpace(line), " "); !slices.Contains(names, name) {
			t.Errorf("text summary line %q does not start with a variable's name", line)
		}
	}
}
