package upstream_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/internal/metricstest"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

// TestNotFoundOnlyWithTheGamesBody: a 404 is "not found" only when its
// body is the game API's not-found body; any other 404 (a web server's
// page, a proxy's, an empty one, JSON of another service) says the base
// URL is wrong, and is unavailable, logged once at ERROR with the URL asked.
func TestNotFoundOnlyWithTheGamesBody(t *testing.T) {
	lookups := map[string]func(c *upstream.Client) error{
		"clan":       func(c *upstream.Client) error { _, err := c.Clan(context.Background(), "C2Q8"); return err },
		"battlelog":  func(c *upstream.Client) error { _, err := c.PlayerBattles(context.Background(), "C2Q8"); return err },
		"tournament": func(c *upstream.Client) error { _, err := c.Tournament(context.Background(), "C2Q8"); return err },
	}
	for _, tt := range []struct {
		name, contentType, body string
		gameNotFound            bool
	}{
		{"the game's body", "application/json", `{"reason":"notFound"}`, true},
		{"the game's body with a message", "application/json", `{"reason":"notFound","message":"Not found with tag #C2Q8"}`, true},
		{"a web server's page", "text/html", "<html><body><h1>404 Not Found</h1><hr>nginx</body></html>", false},
		{"Go's plain text", "text/plain; charset=utf-8", "404 page not found\n", false},
		{"an empty body", "", "", false},
		{"JSON of another service", "application/json", `{"error":"Not Found","status":404}`, false},
		{"JSON with another reason", "application/json", `{"reason":"unknownPath"}`, false},
		{"JSON null", "application/json", `null`, false},
	} {
		for endpoint, lookup := range lookups {
			t.Run(tt.name+"/"+endpoint, func(t *testing.T) {
				base, calls := countingUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
					if tt.contentType != "" {
						w.Header().Set("Content-Type", tt.contentType)
					}
					w.WriteHeader(http.StatusNotFound)
					_, _ = w.Write([]byte(tt.body))
				})
				reg := prometheus.NewRegistry()
				client, logs := newClient(t, base, upstream.Config{Metrics: reg})
				err := lookup(client)
				out := logs.String()
				outcome := "not_found"
				if tt.gameNotFound {
					if !errors.Is(err, models.ErrNotFound) {
						t.Fatalf("error %v, want not found", err)
					}
					if strings.Contains(out, "level=ERROR") || strings.Contains(out, "level=WARN") {
						t.Errorf("a clan, player or tournament not found is no problem to log:\n%s", out)
					}
				} else {
					outcome = "unavailable"
					var unavailable *models.UnavailableError
					if errors.Is(err, models.ErrNotFound) || !errors.As(err, &unavailable) {
						t.Fatalf("error %v, want unavailable, not not found", err)
					}
					if unavailable.Source != "upstream" || unavailable.RetryAfter != 10*time.Second {
						t.Errorf("unavailable %+v, want the upstream's with a Retry-After of 10 s", unavailable)
					}
					if n := strings.Count(out, "level=ERROR"); n != 1 || strings.Count(out, "\n") != 1 {
						t.Errorf("%d ERROR lines, want exactly one line, at ERROR:\n%s", n, out)
					}
					if !strings.Contains(out, "url="+base+"/") || !strings.Contains(out, "CROWNS_UPSTREAM_URL") {
						t.Errorf("the line lacks the URL asked or the hint at the base URL:\n%s", out)
					}
				}
				if got := calls.Load(); got != 1 {
					t.Errorf("%d requests, want 1: a 404 is not retried", got)
				}
				if strings.Contains(out, testToken) || strings.Contains(err.Error(), testToken) {
					t.Errorf("the token leaked:\n%s", out)
				}
				labels := map[string]string{"endpoint": endpoint, "outcome": outcome}
				if got := metricstest.Gather(t, reg).Value("crowns_upstream_calls_total", labels); got != 1 {
					t.Errorf("crowns_upstream_calls_total%v = %v, want 1", labels, got)
				}
			})
		}
	}
}

// TestForeignNotFoundStaysErrorForACallerThatSumsUp: a caller that sums
// its failures up (the scheduler's tick) still gets the line about a wrong
// base URL at ERROR: it is a configuration problem, not an outage.
func TestForeignNotFoundStaysErrorForACallerThatSumsUp(t *testing.T) {
	base, _ := countingUpstream(t, errorAnswer(http.StatusNotFound, "", "404 page not found\n"))
	client, logs := newClient(t, base, upstream.Config{})
	_, err := client.Clan(upstream.CallerSumsUpFailures(context.Background()), "C2Q8")
	if !errors.Is(err, models.ErrUnavailable) {
		t.Fatalf("error %v, want unavailable", err)
	}
	if out := logs.String(); strings.Count(out, "level=ERROR") != 1 || !strings.Contains(out, "CROWNS_UPSTREAM_URL") {
		t.Errorf("want one ERROR line naming CROWNS_UPSTREAM_URL:\n%s", out)
	}
}
