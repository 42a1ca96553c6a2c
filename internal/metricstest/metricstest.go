// Package metricstest reads Prometheus metrics in tests: those a registry
// gathers, or those a /metrics endpoint serves, and the value of one
// series among them.
package metricstest

import (
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are metric families by name.
type Families map[string]*dto.MetricFamily

// Gather reads the metrics of g.
func Gather(t testing.TB, g prometheus.Gatherer) Families {
	t.Helper()
	list, err := g.Gather()
	if err != nil {
		t.Fatalf("gather metrics: %v", err)
	}
	families := Families{}
	for _, f := range list {
		families[f.GetName()] = f
	}
	return families
}

// Scrape reads the metrics served at url in the text format.
func Scrape(t testing.TB, url string) Families {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the metrics do not parse: %v", err)
	}
	return families
}

// Value is the value of the first counter or gauge of family whose labels
// include labels, or the observation count of such a histogram; -1 when
// there is none.
func (f Families) Value(family string, labels map[string]string) float64 {
	fam := f[family]
	if fam == nil {
		return -1
	}
next:
	for _, m := range fam.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for name, value := range labels {
			if have[name] != value {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

// Sum is the sum of the values (as Value reads them) of every series of
// family whose labels include labels; 0 when there is none.
func (f Families) Sum(family string, labels map[string]string) float64 {
	fam := f[family]
	var sum float64
	for _, m := range fam.GetMetric() {
		one := Families{family: &dto.MetricFamily{Name: fam.Name, Type: fam.Type, Metric: []*dto.Metric{m}}}
		if v := one.Value(family, labels); v > 0 {
			sum += v
		}
	}
	return sum
}
