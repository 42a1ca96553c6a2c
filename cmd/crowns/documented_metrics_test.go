package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// documentedMetric is a metric name in a code span of the metrics table:
// crowns_http_requests_total{route,status} (its labels), or
// crowns_database_connections_{open,idle} (a name per word in braces,
// written after a name's stem, which ends in "_").
var documentedMetric = regexp.MustCompile("`(crowns_[a-z_]+)(\\{[a-z_,]+\\})?`")

// metricTableNames are the metric names of the first cells of the table
// in docs/operations.md's "## Metrics" section.
func metricTableNames(t *testing.T) []string {
	t.Helper()
	section := documentSection(t, filepath.Join("docs", "operations.md"), "Metrics")
	var names []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "| `crowns_") || len(cells) < 3 {
			continue
		}
		for _, match := range documentedMetric.FindAllStringSubmatch(cells[1], -1) {
			stem, braces := match[1], strings.Trim(match[2], "{}")
			if !strings.HasSuffix(stem, "_") || braces == "" {
				names = append(names, stem)
				continue
			}
			for _, word := range strings.Split(braces, ",") {
				names = append(names, stem+word)
			}
		}
	}
	slices.Sort(names)
	return names
}

// TestOperationsMetricTableListsExactlyTheExportedMetrics: docs/operations.md's
// table of metrics, which the README sends operators to for "every one",
// names each crowns_* family a serving process exports (the bot's
// included) and no other: a metric added without a row, or a row left
// behind by a renamed metric, fails here rather than leaving an operator
// to query a name that never appears.
func TestOperationsMetricTableListsExactlyTheExportedMetrics(t *testing.T) {
	documented := metricTableNames(t)
	var exported []string
	for name := range exportedMetrics(t) {
		if strings.HasPrefix(name, "crowns_") {
			exported = append(exported, name)
		}
	}
	slices.Sort(exported)
	if len(exported) == 0 {
		t.Fatal("the process exports no crowns_* metric")
	}
	for _, name := range documented {
		if _, found := slices.BinarySearch(exported, name); !found {
			t.Errorf("docs/operations.md's metrics table names %s, which the process does not export", name)
		}
	}
	for _, name := range exported {
		if _, found := slices.BinarySearch(documented, name); !found {
			t.Errorf("the process exports %s, which docs/operations.md's metrics table does not name", name)
		}
	}
}

// documentedFamilyPrefix is a family written by its prefix in the metrics
// table, `go_*`: every metric whose name starts with go_.
var documentedFamilyPrefix = regexp.MustCompile("`([a-z]+_)\\*`")

// TestOperationsMetricTableCoversTheOtherExportedMetrics: every metric a
// serving process exports beside its crowns_* ones (the Go runtime's, the
// process's, the metrics handler's own) falls under a prefix the table
// names (`go_*`), so the table's "every one" holds for what an operator
// sees on /metrics.
func TestOperationsMetricTableCoversTheOtherExportedMetrics(t *testing.T) {
	section := documentSection(t, filepath.Join("docs", "operations.md"), "Metrics")
	var prefixes []string
	for _, line := range strings.Split(section, "\n") {
		if cells := strings.Split(line, "|"); strings.HasPrefix(line, "| `") && len(cells) >= 3 {
			for _, match := range documentedFamilyPrefix.FindAllStringSubmatch(cells[1], -1) {
				prefixes = append(prefixes, match[1])
			}
		}
	}
	if len(prefixes) == 0 {
		t.Fatal("docs/operations.md's metrics table names no family by its prefix (`go_*`)")
	}
	for name := range exportedMetrics(t) {
		if strings.HasPrefix(name, "crowns_") {
			continue
		}
		if !slices.ContainsFunc(prefixes, func(prefix string) bool { return strings.HasPrefix(name, prefix) }) {
			t.Errorf("the process exports %s, which no row of docs/operations.md's metrics table covers (prefixes %v)", name, prefixes)
		}
	}
}
