package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/internal/metricstest"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// servedMetrics starts a `crowns serve` running the API and the
// scheduler, with tournaments on and a key rate limit of four requests,
// drives requests through it (a cache miss and hit, an unknown key, a
// rate-limited key) and scrapes its metrics.
func servedMetrics(t *testing.T) metricstest.Families {
	t.Helper()
	metricsAddr := freeAddr(t)
	n := startServe(t, map[string]string{
		"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_METRICS_ADDR": metricsAddr, "CROWNS_ROLES": "api,scheduler",
		"CROWNS_TOURNAMENTS": "on", "CROWNS_RATE_LIMIT_PER_SECOND": "0.001", "CROWNS_RATE_LIMIT_BURST": "4",
	})
	<-n.stdout.seen
	key := printedKey.FindString(n.stdout.String())
	if key == "" {
		t.Fatalf("no key printed:\n%s", n.stdout.String())
	}
	requests := []struct {
		path, auth string
		status     int
	}{
		{"/clan/search?name=royal&limit=2", "Bearer " + key, http.StatusOK},
		{"/clan/search?name=royal&limit=2", "Bearer " + key, http.StatusOK},
		{"/clan/search?name=royal&limit=2", "Bearer crw_" + strings.Repeat("0", 36), http.StatusUnauthorized},
		{"/clan/search?name=dark&limit=2", "Bearer " + key, http.StatusOK},
		{"/clan/search?name=dark&limit=2", "Bearer " + key, http.StatusOK},
		{"/clan/search?name=dark&limit=2", "Bearer " + key, http.StatusTooManyRequests},
		{"/auth/stats", "Bearer " + key, http.StatusOK}, // free, even rate-limited
		{"/auth/stats", "Bearer " + key, http.StatusOK},
	}
	for _, r := range requests {
		if code := getJSON(t, n.url(r.path), r.auth, nil); code != r.status {
			t.Fatalf("GET %s: %d, want %d", r.path, code, r.status)
		}
	}
	return metricstest.Scrape(t, "http://"+metricsAddr+"/metrics")
}

func TestServeExportsCacheKeyLimitAndGameAPIMetrics(t *testing.T) {
	families := servedMetrics(t)
	for _, tt := range []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"crowns_cache_lookups_total", map[string]string{"cache": "clan_search", "result": "miss"}, 2},
		{"crowns_cache_lookups_total", map[string]string{"cache": "clan_search", "result": "hit"}, 2},
		{"crowns_cache_lookups_total", map[string]string{"cache": "battles", "result": "hit"}, 0},
		{"crowns_cache_lookups_total", map[string]string{"cache": "key_stats", "result": "miss"}, 1},
		{"crowns_cache_lookups_total", map[string]string{"cache": "key_stats", "result": "hit"}, 1},
		{"crowns_key_verifications_total", map[string]string{"outcome": "blacklisted"}, 0},
		// The made-up key fails its checksum: refused by its form, not
		// a hit of the verification cache.
		{"crowns_key_verifications_total", map[string]string{"outcome": "unknown", "cache": "none"}, 1},
		{"crowns_key_verifications_total", map[string]string{"outcome": "unknown", "cache": "hit"}, 0},
		{"crowns_rate_limited_total", map[string]string{"reason": "key"}, 1},
		{"crowns_rate_limited_total", map[string]string{"reason": "game_calls"}, 0},
		{"crowns_upstream_calls_total", map[string]string{"endpoint": "clans", "outcome": "ok"}, 2},
	} {
		if got := families.Value(tt.family, tt.labels); got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.family, tt.labels, got, tt.want)
		}
	}
	// The key was verified five times (once in the database), the made-up
	// key once.
	if got := families.Sum("crowns_key_verifications_total", map[string]string{"outcome": "ok"}); got < 5 {
		t.Errorf("ok key verifications: %v, want at least 5", got)
	}
	if got := families.Sum("crowns_key_verifications_total", map[string]string{"outcome": "ok", "cache": "hit"}); got < 4 {
		t.Errorf("ok key verifications from memory: %v, want at least 4", got)
	}
	if got := families.Sum("crowns_key_verifications_total", map[string]string{"outcome": "unknown"}); got != 1 {
		t.Errorf("unknown key verifications: %v, want 1", got)
	}
	if got := families.Value("crowns_upstream_call_duration_seconds", map[string]string{"endpoint": "clans"}); got != 2 {
		t.Errorf("crowns_upstream_call_duration_seconds{endpoint=clans} counts %v calls, want 2", got)
	}
	for _, family := range []string{"crowns_scheduler_slots_total", "crowns_scheduler_snapshot_lag_seconds", "crowns_scheduler_tournament_refreshes_total"} {
		if families[family] == nil {
			t.Errorf("no %s", family)
		}
	}
}

// exportedMetrics is every metric family a `crowns serve` exports, the
// bot's included: servedMetrics' scrape, and, since the bot runs only with
// a Discord token, the families of a bot built (not connected) with a
// registry of its own.
func exportedMetrics(t *testing.T) metricstest.Families {
	t.Helper()
	exported := servedMetrics(t)
	reg := prometheus.NewRegistry()
	db := storetest.Open(t, store.DialectSQLite)
	service, err := keys.NewService(db, keys.Config{Secret: bytes.Repeat([]byte{7}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{DiscordToken: "t", DiscordGuildID: "1", DiscordKeyChannelID: "2"}
	if _, err := newKeyDesk(cfg, db, service, nil, slog.New(slog.DiscardHandler), models.SystemClock{}, reg); err != nil {
		t.Fatal(err)
	}
	for name, family := range metricstest.Gather(t, reg) {
		exported[name] = family
	}
	return exported
}

// dashboardMetric finds the metric names a dashboard query uses.
var dashboardMetric = regexp.MustCompile(`\bcrowns_[a-z_]+\b`)

func TestGrafanaDashboardUsesOnlyExportedMetrics(t *testing.T) {
	raw, err := os.ReadFile("../../docker/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dashboard struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dashboard); err != nil {
		t.Fatalf("the dashboard is not valid JSON: %v", err)
	}
	exported := exportedMetrics(t)
	used := 0
	for _, panel := range dashboard.Panels {
		if len(panel.Targets) == 0 {
			t.Errorf("panel %q has no query", panel.Title)
		}
		for _, target := range panel.Targets {
			for _, name := range dashboardMetric.FindAllString(target.Expr, -1) {
				used++
				base := name
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					if trimmed, ok := strings.CutSuffix(name, suffix); ok && exported[trimmed] != nil {
						base = trimmed
					}
				}
				if exported[base] == nil {
					t.Errorf("panel %q queries %s, which the process does not export", panel.Title, name)
				}
			}
		}
	}
	if used == 0 {
		t.Fatal("the dashboard queries no crowns metric")
	}
}
