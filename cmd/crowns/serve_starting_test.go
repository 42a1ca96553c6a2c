package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store/storetest"
)

// startingClientTimeout bounds each request to a node waiting for its
// database: far under the minute serve waits, so an answer within it
// is one given while waiting.
const startingClientTimeout = 5 * time.Second

// TestServeAnswersWhileWaitingForTheDatabase: while serve waits for a
// database that is not up, the API's port answers every request at once —
// /healthz that the process is alive but starting, anything else the
// contract's 503 with Retry-After — each on a connection it closes; once
// the database is up, the API answers on the same port.
func TestServeAnswersWhileWaitingForTheDatabase(t *testing.T) {
	cfg, proxy := storetest.PostgresBehindProxy(t, nil)
	proxy.Refuse()
	env := useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_SUPPORT_INFO": "see status.crowns.example"}, cfg.URL)
	n := startServeUntil(t, env, nil, "database unreachable at start; trying again")

	unavailable := map[string]any{"error": true, "statusCode": 503.0, "statusText": "Temporarily unavailable", "info": "see status.crowns.example"}
	for _, tc := range []struct {
		name, method, path string
		status             int
		body               map[string]any
	}{
		{"liveness", http.MethodGet, "/healthz", http.StatusOK, map[string]any{"status": "starting"}},
		{"liveness, HEAD", http.MethodHead, "/healthz", http.StatusOK, nil},
		{"readiness", http.MethodGet, "/readyz", http.StatusServiceUnavailable, unavailable},
		{"a route", http.MethodGet, "/clan/2PP/history", http.StatusServiceUnavailable, unavailable},
		{"an unknown path", http.MethodGet, "/no/such/path", http.StatusServiceUnavailable, unavailable},
		{"another method", http.MethodPost, "/healthz", http.StatusServiceUnavailable, unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := startingRequest(t, tc.method, n.url(tc.path))
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tc.status, body)
			}
			if tc.body != nil {
				var got map[string]any
				if err := json.Unmarshal(body, &got); err != nil || !reflect.DeepEqual(got, tc.body) {
					t.Errorf("body %s (%v), want %v", body, err, tc.body)
				}
			}
			wantRetryAfter := ""
			if tc.status == http.StatusServiceUnavailable {
				wantRetryAfter = "5"
			}
			for name, want := range map[string]string{
				"Content-Type": "application/json", "X-Content-Type-Options": "nosniff", "Retry-After": wantRetryAfter,
			} {
				if got := resp.Header.Get(name); got != want {
					t.Errorf("%s: %q, want %q", name, got, want)
				}
			}
			if resp.Header.Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
			if !resp.Close {
				t.Error("the connection is kept open: it would outlive the API taking the port over")
			}
		})
	}

	proxy.Accept()
	waitForLog(t, n.stderr, "API listening")
	var health map[string]any
	if code := getJSON(t, n.url("/healthz"), "", &health); code != http.StatusOK || health["status"] != "ok" {
		t.Fatalf("healthz once started: %d %v, want the API's 200 ok", code, health)
	}
	if code := getJSON(t, n.url("/readyz"), "", nil); code != http.StatusOK {
		t.Fatalf("readyz once the database is up: %d", code)
	}
}

// TestServeStoppedWhileAnsweringAsStartingClosesItsPort: a stop signal
// while serve waits for the database, after it answered as starting,
// ends the process cleanly (exit 0, see stop) and gives the port back.
func TestServeStoppedWhileAnsweringAsStartingClosesItsPort(t *testing.T) {
	cfg, proxy := storetest.PostgresBehindProxy(t, nil)
	proxy.Refuse()
	env := useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir()}, cfg.URL)
	n := startServeUntil(t, env, nil, "database unreachable at start; trying again")
	if resp, body := startingRequest(t, http.MethodGet, n.url("/readyz")); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("readyz while waiting for the database: %d %s", resp.StatusCode, body)
	}
	n.stop(t)
	if log := n.stderr.String(); !strings.Contains(log, "stopped while starting") {
		t.Fatalf("a stop during the wait for the database was not logged as a stop:\n%s", log)
	}
	if conn, err := net.DialTimeout("tcp", n.addr, startingClientTimeout); err == nil {
		conn.Close()
		t.Fatalf("%s still takes connections after the process stopped", n.addr)
	}
}

// startingRequest sends one request to a node waiting for its database,
// bounded by startingClientTimeout, and returns its answer and body.
func startingRequest(t *testing.T, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: startingClientTimeout, Transport: &http.Transport{Proxy: nil}}
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s while waiting for the database: %v", method, url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}
