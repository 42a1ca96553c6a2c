package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/internal/metricstest"
)

func TestServeExportsMetricsOnTheirOwnAddress(t *testing.T) {
	metricsAddr := freeAddr(t)
	n := startServe(t, map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_METRICS_ADDR": metricsAddr, "CROWNS_ROLES": "api"})
	metricsURL := "http://" + metricsAddr + "/metrics"
	<-n.stdout.seen
	key := printedKey.FindString(n.stdout.String())
	if key == "" {
		t.Fatalf("no key printed:\n%s", n.stdout.String())
	}
	before := metricstest.Scrape(t, metricsURL)
	requestStatements := before.Value("crowns_database_statements_total", map[string]string{"work": "request"})
	if requestStatements < 0 || before.Value("crowns_database_statements_total", map[string]string{"work": "background"}) < 0 {
		t.Fatal("no crowns_database_statements_total by work")
	}
	requests := []struct {
		path, auth string
		status     int
	}{
		{"/clan/search?name=royal&limit=2", "Bearer " + key, http.StatusOK},
		{"/clan/search?name=royal&limit=2", "Bearer " + key, http.StatusOK},
		{"/clan/search?name=dark&limit=2", "", http.StatusUnauthorized},
		{"/player/ABC/battles", "", http.StatusUnauthorized},
		{"/no/such/path/1", "", http.StatusNotFound},
		{"/no/such/path/2", "", http.StatusNotFound},
		{"/healthz", "", http.StatusOK},
		{"/docs/redoc.standalone.js", "", http.StatusOK},
		{"/docs/redoc.standalone.js.LICENSE.txt", "", http.StatusOK},
	}
	for _, r := range requests {
		if code := getJSON(t, n.url(r.path), r.auth, nil); code != r.status {
			t.Fatalf("GET %s: %d, want %d", r.path, code, r.status)
		}
	}
	// The metrics are not on the API's address: there /metrics is a path
	// like any unknown one.
	var notFound struct {
		Error      bool   `json:"error"`
		StatusText string `json:"statusText"`
	}
	if code := getJSON(t, n.url("/metrics"), "", &notFound); code != http.StatusNotFound || !notFound.Error || notFound.StatusText != "Path not found" {
		t.Fatalf("GET /metrics on the API: %d %+v, want the contract's 404", code, notFound)
	}

	after := metricstest.Scrape(t, metricsURL)
	for _, tt := range []struct {
		route, status string
		want          float64
	}{
		{"/clan/search", "200", 2},
		{"/clan/search", "401", 1},
		{"/player/:tag/battles", "401", 1},
		{"unmatched", "404", 3}, // two unknown paths and /metrics
		{"/healthz", "200", 1},
		{"/docs/redoc.standalone.js", "200", 1}, // routes of their own, not unmatched
		{"/docs/redoc.standalone.js.LICENSE.txt", "200", 1},
	} {
		got := after.Value("crowns_http_requests_total", map[string]string{"route": tt.route, "status": tt.status})
		if got != tt.want {
			t.Errorf("crowns_http_requests_total{route=%q,status=%q} = %v, want %v", tt.route, tt.status, got, tt.want)
		}
	}
	for _, m := range after["crowns_http_requests_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "route" && strings.Contains(l.GetValue(), "such") {
				t.Errorf("a raw path became a route label: %q", l.GetValue())
			}
		}
	}
	if got := after.Value("crowns_http_request_duration_seconds", map[string]string{"route": "/clan/search"}); got != 3 {
		t.Errorf("crowns_http_request_duration_seconds{route=\"/clan/search\"} has %v observations, want 3", got)
	}
	// The first request with the key verified it in the database: request
	// work sent statements.
	if got := after.Value("crowns_database_statements_total", map[string]string{"work": "request"}); got <= requestStatements {
		t.Errorf("request statements went from %v to %v, want more", requestStatements, got)
	}
	if got := after.Value("crowns_database_connections_max_open", nil); got <= 0 {
		t.Errorf("crowns_database_connections_max_open = %v", got)
	}
	if _, ok := after["go_goroutines"]; !ok {
		t.Error("no Go runtime metrics")
	}
}

func TestServeWithMetricsOffServesNone(t *testing.T) {
	n := startServe(t, map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_METRICS_ADDR": "off", "CROWNS_ROLES": "api"})
	if strings.Contains(n.stderr.String(), "metrics listening") {
		t.Fatalf("metrics served although off:\n%s", n.stderr.String())
	}
}

func TestConfigRefusesMetricsOnTheAPIAddress(t *testing.T) {
	for _, tt := range []struct {
		addr, metrics string
		refused       bool
	}{
		{":8080", ":8080", true},
		{":8080", "127.0.0.1:8080", true},
		{"0.0.0.0:7000", "127.0.0.1:7000", true},
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{"127.0.0.1:8080", "127.0.0.2:8080", false},
		{":8080", "127.0.0.1:9090", false},
		{":8080", "off", false},
	} {
		env := map[string]string{"CROWNS_ADDR": tt.addr, "CROWNS_METRICS_ADDR": tt.metrics}
		_, err := loadConfig(func(name string) string { return env[name] })
		refused := err != nil && strings.Contains(err.Error(), "CROWNS_METRICS_ADDR")
		if refused != tt.refused {
			t.Errorf("CROWNS_ADDR=%s CROWNS_METRICS_ADDR=%s: refused %v (%v), want %v", tt.addr, tt.metrics, refused, err, tt.refused)
		}
	}
}

// TestConfigChecksTheMetricsAddress: a metrics address that cannot be
// listened on is a configuration problem naming CROWNS_METRICS_ADDR,
// reported with the others (exit 2), not a failure to listen once the
// configuration was accepted.
func TestConfigChecksTheMetricsAddress(t *testing.T) {
	const problem = "CROWNS_METRICS_ADDR must be host:port with a port from 0 to 65535"
	tests := []struct {
		metrics, problem string
	}{
		{"", ""}, // the default, 127.0.0.1:9181
		{"off", ""},
		{"127.0.0.1:0", ""},
		{"[::1]:9181", ""},
		{"0.0.0.0:9181", ""},
		{"nope", problem},
		{"9181", problem},
		{"127.0.0.1:99999", problem},
		{"OFF", problem},
		{"127.0.0.1:metrics", problem},
	}
	for _, tt := range tests {
		t.Run(tt.metrics, func(t *testing.T) {
			loadConfigExpecting(t, map[string]string{"CROWNS_METRICS_ADDR": tt.metrics}, tt.problem)
		})
	}
}

func TestMetricsAddressDefaultsToLoopback(t *testing.T) {
	cfg, err := loadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MetricsAddr != "127.0.0.1:9181" {
		t.Fatalf("default metrics address %q, want loopback 127.0.0.1:9181", cfg.MetricsAddr)
	}
}
