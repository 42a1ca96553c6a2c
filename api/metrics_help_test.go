package api_test

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/internal/metricstest"
)

// TestOutcomeMetricsHelpNamesEveryLabelValue: the HELP text of each
// outcome metric lists the values of its labels (docs/operations.md's
// Metrics section lists the same), so an operator reading a scrape learns
// what every series it exports means.
func TestOutcomeMetricsHelpNamesEveryLabelValue(t *testing.T) {
	reg := prometheus.NewRegistry()
	newHarness(t, harnessOptions{config: func(c *api.Config) { c.Metrics = reg }})
	families := metricstest.Gather(t, reg)
	for _, tt := range []struct{ family, label string }{
		{"crowns_cache_lookups_total", "cache"},
		{"crowns_cache_lookups_total", "result"},
		{"crowns_key_verifications_total", "outcome"},
		{"crowns_key_verifications_total", "cache"},
		{"crowns_rate_limited_total", "reason"},
	} {
		family := families[tt.family]
		if family == nil {
			t.Errorf("no %s", tt.family)
			continue
		}
		for _, m := range family.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == tt.label && !strings.Contains(family.GetHelp(), l.GetValue()) {
					t.Errorf("%s exports %s=%q, which its HELP does not name: %q", tt.family, tt.label, l.GetValue(), family.GetHelp())
				}
			}
		}
	}
}
