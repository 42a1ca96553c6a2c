package upstream_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/internal/metricstest"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/upstream"
)

func TestCallMetricsCountEachEndpointByOutcome(t *testing.T) {
	clan := answerFile(t, "clan.json")
	battles := answerFile(t, "battlelog.json")
	base := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.EscapedPath()
		switch {
		case path == "/v1/clans/%23C2Q8":
			clan(w, r)
		case path == "/v1/clans/%23GONE":
			errorAnswer(http.StatusNotFound, "", `{"reason":"notFound"}`)(w, r, 0)
		case path == "/v1/clans":
			errorAnswer(http.StatusBadRequest, "", `{"reason":"badRequest"}`)(w, r, 0)
		case path == "/v1/players/%23P0LY/battlelog":
			battles(w, r)
		case path == "/v1/players/%23R3F/battlelog":
			errorAnswer(http.StatusForbidden, "", `{"reason":"accessDenied"}`)(w, r, 0)
		case strings.HasPrefix(path, "/v1/tournaments/%23MA1NT"):
			errorAnswer(http.StatusServiceUnavailable, "", `{"reason":"inMaintenance"}`)(w, r, 0)
		case strings.HasPrefix(path, "/v1/tournaments/"):
			<-r.Context().Done() // hangs until the client gives up
		default:
			http.NotFound(w, r)
		}
	})
	reg := prometheus.NewRegistry()
	client, _ := newClient(t, base, upstream.Config{Metrics: reg, MaxAttempts: 1, Timeout: 200 * time.Millisecond})
	ctx := context.Background()
	calls := []func() error{
		func() error { _, err := client.Clan(ctx, "C2Q8"); return err },
		func() error { _, err := client.Clan(ctx, "C2Q8"); return err },
		func() error { _, err := client.Clan(ctx, "GONE"); return err },
		func() error {
			_, err := client.SearchClans(ctx, legacy.ClanSearchQuery{Name: "x", MinScore: -1})
			return err
		},
		func() error { _, err := client.PlayerBattles(ctx, "P0LY"); return err },
		func() error { _, err := client.PlayerBattles(ctx, "R3F"); return err },
		func() error { _, err := client.Tournament(ctx, "MA1NT"); return err },
		func() error { _, err := client.Tournament(ctx, "SL0W"); return err },
	}
	for _, call := range calls {
		_ = call()
	}
	families := metricstest.Gather(t, reg)
	for _, tt := range []struct {
		endpoint, outcome string
		want              float64
	}{
		{"clan", "ok", 2},
		{"clan", "not_found", 1},
		{"clans", "bad_request", 1},
		{"battlelog", "ok", 1},
		{"battlelog", "refused", 1},
		{"tournament", "unavailable", 1},
		{"tournament", "timeout", 1},
		{"tournament", "ok", 0},
	} {
		labels := map[string]string{"endpoint": tt.endpoint, "outcome": tt.outcome}
		if got := families.Value("crowns_upstream_calls_total", labels); got != tt.want {
			t.Errorf("crowns_upstream_calls_total%v = %v, want %v", labels, got, tt.want)
		}
	}
	for endpoint, want := range map[string]float64{"clan": 3, "clans": 1, "battlelog": 2, "tournament": 2, "cards": 0} {
		labels := map[string]string{"endpoint": endpoint}
		if got := families.Value("crowns_upstream_call_duration_seconds", labels); got != want {
			t.Errorf("crowns_upstream_call_duration_seconds%v counts %v calls, want %v", labels, got, want)
		}
	}
}

func TestCallMetricsRegisterOncePerRegistry(t *testing.T) {
	base := fakeUpstream(t, answerFile(t, "clan.json"))
	reg := prometheus.NewRegistry()
	if _, err := upstream.New(upstream.Config{BaseURL: base, Metrics: reg}); err != nil {
		t.Fatal(err)
	}
	if _, err := upstream.New(upstream.Config{BaseURL: base, Metrics: reg}); err == nil {
		t.Fatal("a second client registered the same metrics with one registry without complaint")
	}
}
