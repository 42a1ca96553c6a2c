package main

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// healthcheck runs crowns healthcheck with CROWNS_ADDR=addr.
func healthcheck(t *testing.T, addr string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), []string{"healthcheck"}, testCLI(&out, &errOut, map[string]string{"CROWNS_ADDR": addr}))
	return code, out.String(), errOut.String()
}

// serverOnAllInterfaces serves handler on every interface, as a server
// with CROWNS_ADDR=":PORT" does, and returns the port.
func serverOnAllInterfaces(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	listener, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	server := httptest.NewUnstartedServer(handler)
	server.Listener = listener
	server.Start()
	t.Cleanup(server.Close)
	_, port, _ := net.SplitHostPort(listener.Addr().String())
	return port
}

func TestHealthcheckAsksTheLocalServer(t *testing.T) {
	healthy := serverOnAllInterfaces(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	unhealthy := serverOnAllInterfaces(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	tests := []struct {
		name, addr string
		code       int
		out        string // a part of stdout (exit 0) or stderr (exit 1)
	}{
		{"empty host", ":" + healthy, exitOK, "healthy: http://127.0.0.1:" + healthy + "/healthz answered 200"},
		{"0.0.0.0", "0.0.0.0:" + healthy, exitOK, "http://127.0.0.1:" + healthy + "/healthz"},
		{"::", "[::]:" + healthy, exitOK, "http://127.0.0.1:" + healthy + "/healthz"},
		{"a named host", "localhost:" + healthy, exitOK, "http://localhost:" + healthy + "/healthz"},
		{"a 503", ":" + unhealthy, exitFailure, "answered 503 Service Unavailable"},
		{"nothing listening", freeAddr(t), exitFailure, "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := healthcheck(t, tt.addr)
			said := stdout
			if tt.code != exitOK {
				said = stderr
			}
			if code != tt.code || !strings.Contains(said, tt.out) || strings.Count(stdout+stderr, "\n") != 1 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and one line containing %q", code, stdout, stderr, tt.code, tt.out)
			}
		})
	}
}

func TestHealthcheckPassesAgainstCrownsServe(t *testing.T) {
	n := startServe(t, map[string]string{"CROWNS_DATA_DIR": t.TempDir()})
	if code, stdout, stderr := healthcheck(t, n.addr); code != exitOK {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	n.stop(t)
	if code, _, stderr := healthcheck(t, n.addr); code != exitFailure {
		t.Fatalf("after serve stopped: exit %d, stderr %q; want 1", code, stderr)
	}
}

func TestLoopbackHostPort(t *testing.T) {
	for addr, want := range map[string]string{
		":8080":          "127.0.0.1:8080",
		"0.0.0.0:8080":   "127.0.0.1:8080",
		"[::]:8080":      "127.0.0.1:8080",
		"localhost:9000": "localhost:9000",
		"10.1.2.3:80":    "10.1.2.3:80",
		"[::1]:80":       "[::1]:80",
		"no-port":        "no-port",
	} {
		if got := loopbackHostPort(addr, "127.0.0.1"); got != want {
			t.Errorf("loopbackHostPort(%q) = %q, want %q", addr, got, want)
		}
	}
}
