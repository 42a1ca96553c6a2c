package api_test

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/internal/metricstest"
)

// askHealth sends GET /healthz on conn and reads the answer.
func askHealth(t *testing.T, conn net.Conn) *http.Response {
	t.Helper()
	if _, err := conn.Write([]byte("GET /healthz HTTP/1.1\r\nHost: crowns\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// holdServedConnection opens a connection to addr that is answered 200
// (what names it in a failure), held open until the test ends.
func holdServedConnection(t *testing.T, addr, what string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if resp := askHealth(t, conn); resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d", what, resp.StatusCode)
	}
	return conn
}

func TestConnectionsPerAddressAreBounded(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) { c.MaxConnsPerAddress = 2 }})
	addr := strings.TrimPrefix(serveOnLoopback(t, h.server), "http://")
	var held []net.Conn
	for range 2 {
		held = append(held, holdServedConnection(t, addr, "a connection within the limit"))
	}
	extra, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	_ = extra.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(extra), nil)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		StatusCode int    `json:"statusCode"`
		StatusText string `json:"statusText"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTooManyRequests || body.StatusText != "Rate limit exceeded" || !resp.Close {
		t.Fatalf("a connection past the limit: %d %+v, close %v", resp.StatusCode, body, resp.Close)
	}
	if resp.Header.Get("Retry-After") != "1" || resp.Header.Get("x-ratelimit-retry-after") != "1000" {
		t.Errorf("a connection past the limit: Retry-After %q, x-ratelimit-retry-after %q; want 1 and 1000 (every 429)",
			resp.Header.Get("Retry-After"), resp.Header.Get("x-ratelimit-retry-after"))
	}
	if _, err := http.ParseTime(resp.Header.Get("Date")); err != nil || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("a connection past the limit: Date %q (%v), X-Request-Id %q; want both", resp.Header.Get("Date"), err, resp.Header.Get("X-Request-Id"))
	}
	// Once a held connection closes, its place is free again: the server
	// notices the close on its own time, so a new connection is tried
	// until it is let in.
	held[0].Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		resp := askHealth(t, conn)
		conn.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed connection's place was never given back")
		}
	}
}

// TestConnectionsOfATrustedProxyAreNotBounded: a trusted proxy's
// connections carry many clients' requests, so they hold no place in the
// per-address limit.
func TestConnectionsOfATrustedProxyAreNotBounded(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) {
		c.MaxConnsPerAddress = 1
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	}})
	addr := strings.TrimPrefix(serveOnLoopback(t, h.server), "http://")
	for range 3 {
		holdServedConnection(t, addr, "a trusted proxy's connection past the limit of 1")
	}
}

// TestConnectionsRefusedForTheirAddressAreCounted: the listener's 429 is
// a refusal by a limit like the others, counted under reason
// "connections".
func TestConnectionsRefusedForTheirAddressAreCounted(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := newHarness(t, harnessOptions{config: func(c *api.Config) {
		c.MaxConnsPerAddress = 1
		c.Metrics = reg
	}})
	addr := strings.TrimPrefix(serveOnLoopback(t, h.server), "http://")
	holdServedConnection(t, addr, "a connection within the limit")
	for range 2 {
		extra, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = extra.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(extra), nil)
		if err != nil {
			t.Fatal(err)
		}
		extra.Close()
		if resp.StatusCode != http.StatusTooManyRequests {
			t.Fatalf("a connection past the limit: %d", resp.StatusCode)
		}
	}
	families := metricstest.Gather(t, reg)
	if got := families.Value("crowns_rate_limited_total", map[string]string{"reason": "connections"}); got != 2 {
		t.Errorf(`crowns_rate_limited_total{reason="connections"} = %v, want 2`, got)
	}
}
