package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

var printedKey = regexp.MustCompile(`crw_[0-9A-Za-z]{36}`)

// servingNode is a `crowns serve` running in this test process.
type servingNode struct {
	addr   string
	stdout *watchedBuffer
	stderr *watchedBuffer
	cancel context.CancelFunc
	// hurry is the second stop signal.
	hurry context.CancelFunc
	exit  chan int
}

// startServe runs `crowns serve` with env and waits until the API listens.
func startServe(t *testing.T, env map[string]string) *servingNode {
	t.Helper()
	return startServeAt(t, env, nil)
}

// startServeAt is startServe on clock (testCLI's when nil).
func startServeAt(t *testing.T, env map[string]string, clock models.Clock) *servingNode {
	t.Helper()
	return startServeUntil(t, env, clock, "API listening")
}

// startServeUntil runs `crowns serve` with env on clock (testCLI's when
// nil) and waits until its log contains line.
func startServeUntil(t *testing.T, env map[string]string, clock models.Clock, line string) *servingNode {
	t.Helper()
	n := &servingNode{
		addr:   freeAddr(t),
		stdout: newWatchedBuffer("Try:"),
		stderr: newWatchedBuffer(line),
		exit:   make(chan int, 1),
	}
	env["CROWNS_ADDR"] = n.addr
	if env["CROWNS_METRICS_ADDR"] == "" {
		// Parallel test processes must not share the default port.
		env["CROWNS_METRICS_ADDR"] = "127.0.0.1:0"
	}
	ctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	command := testCLI(n.stdout, n.stderr, env)
	if clock != nil {
		command.clock = clock
	}
	command.hurry, n.hurry = context.WithCancel(context.Background())
	t.Cleanup(n.hurry)
	go func() { n.exit <- run(ctx, []string{"serve"}, command) }()
	select {
	case <-n.stderr.seen:
	case code := <-n.exit:
		t.Fatalf("serve exited with %d before logging %q:\n%s", code, line, n.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not log %q:\n%s", line, n.stderr.String())
	}
	t.Cleanup(func() { n.stop(t) })
	return n
}

// stop cancels the node's context (SIGTERM) and checks it exits cleanly.
func (n *servingNode) stop(t *testing.T) {
	t.Helper()
	if n.cancel == nil {
		return
	}
	n.cancel()
	n.cancel = nil
	select {
	case code := <-n.exit:
		if code != exitOK {
			t.Errorf("serve exited with %d:\n%s", code, n.stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Error("serve did not stop")
	}
}

func (n *servingNode) url(path string) string { return "http://" + n.addr + path }

func TestServeEmbeddedFirstStartPrintsAWorkingKey(t *testing.T) {
	env := map[string]string{"CROWNS_DATA_DIR": t.TempDir()}
	first := startServe(t, env)
	select {
	case <-first.stdout.seen:
	case <-time.After(30 * time.Second):
		t.Fatalf("no welcome on the first start:\n%s", first.stdout.String())
	}
	out := first.stdout.String()
	key := printedKey.FindString(out)
	if key == "" {
		t.Fatalf("no key in the welcome:\n%s", out)
	}
	for _, want := range []string{`curl -H "auth: ` + key + `" "` + first.url("/clan/search?"), `curl -H "Authorization: Bearer ` + key + `" "` + first.url("/player/")} {
		if !strings.Contains(out, want) {
			t.Fatalf("welcome lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(first.stderr.String(), key[4:]) {
		t.Fatal("the key reached the log")
	}
	if code := getJSON(t, first.url("/clan/search?name=royal&limit=2"), "Bearer "+key, nil); code != http.StatusOK {
		t.Fatalf("search with the printed key: %d", code)
	}
	if code := getJSON(t, first.url("/clan/search?name=royal"), "", nil); code != http.StatusUnauthorized {
		t.Fatalf("search without a key: %d", code)
	}
	if code := getJSON(t, first.url("/readyz"), "", nil); code != http.StatusOK {
		t.Fatalf("readyz: %d", code)
	}
	first.stop(t)

	second := startServe(t, env)
	if second.stdout.String() != "" {
		t.Fatalf("a later start printed:\n%s", second.stdout.String())
	}
	if code := getJSON(t, second.url("/clan/search?name=royal&limit=2"), "Bearer "+key, nil); code != http.StatusOK {
		t.Fatalf("the first start's key after a restart: %d", code)
	}
}

func TestServeOnPostgresPrintsNoKey(t *testing.T) {
	n := startServe(t, useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir()}, storetest.PostgresURL(t)))
	if code := getJSON(t, n.url("/readyz"), "", nil); code != http.StatusOK {
		t.Fatalf("readyz: %d", code)
	}
	if out := n.stdout.String(); out != "" {
		t.Fatalf("a PostgreSQL deployment printed:\n%s", out)
	}
}

// TestServeOnSQLiteWithAnUpstreamTokenPrintsNoKey: the welcome key belongs
// to the zero-setup mode only; an upstream token means an operator set
// things up, even on the embedded SQLite file.
func TestServeOnSQLiteWithAnUpstreamTokenPrintsNoKey(t *testing.T) {
	upstream := httptest.NewServer(sandbox.NewWorld(sandbox.Config{}).Handler())
	defer upstream.Close()
	env := map[string]string{
		"CROWNS_DATA_DIR":       t.TempDir(),
		"CROWNS_UPSTREAM_URL":   upstream.URL + "/v1",
		"CROWNS_UPSTREAM_TOKEN": "token",
	}
	key := issueKeyWithCLI(t, env)
	n := startServe(t, env)
	if code := getJSON(t, n.url("/clan/search?name=royal&limit=2"), "Bearer "+key, nil); code != http.StatusOK {
		t.Fatalf("search through the configured upstream: %d", code)
	}
	// The welcome would follow "API listening"; after a clean stop every
	// line serve was going to write is written.
	n.stop(t)
	if out := n.stdout.String(); out != "" {
		t.Fatalf("a deployment with an upstream token printed:\n%s", out)
	}
	if printed := printedKey.FindAllString(n.stderr.String(), -1); len(printed) > 0 {
		t.Fatalf("keys %q reached the log:\n%s", printed, n.stderr.String())
	}
}

func TestServeRejectsABadConfiguration(t *testing.T) {
	stdout, stderr := newWatchedBuffer(""), newWatchedBuffer("")
	code := run(context.Background(), []string{"serve"}, testCLI(stdout, stderr, map[string]string{
		"CROWNS_RATE_LIMIT_BURST": "lots",
		"CROWNS_DATABASE_URL":     "mysql://db",
	}))
	if code != exitUsage {
		t.Fatalf("exit %d, want %d", code, exitUsage)
	}
	for _, want := range []string{"CROWNS_RATE_LIMIT_BURST", "CROWNS_DATABASE_URL"} {
		if !strings.Contains(stderr.String(), want) {
			t.Fatalf("stderr does not name %s:\n%s", want, stderr.String())
		}
	}
}

func TestServePrintsTheConfigurationWithSecretsMasked(t *testing.T) {
	secret := "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldC0xMjM0NTY3OA=="
	n := startServe(t, map[string]string{
		"CROWNS_DATA_DIR":       t.TempDir(),
		"CROWNS_SECRET":         secret,
		"CROWNS_DATABASE_URL":   strings.Replace(storetest.PostgresURL(t), "postgres@", "postgres:hunter2@", 1) + "&password=hunter3",
		"CROWNS_UPSTREAM_TOKEN": "upstream-token-value",
		"CROWNS_UPSTREAM_URL":   "http://127.0.0.1:1/v1",
	})
	log := n.stderr.String()
	for _, secretValue := range []string{secret, "hunter2", "hunter3", "upstream-token-value"} {
		if strings.Contains(log, secretValue) {
			t.Fatalf("the log shows a secret %q:\n%s", secretValue, log)
		}
	}
	if !strings.Contains(log, "crowns configuration:") {
		t.Fatalf("no configuration printed:\n%s", log)
	}
}

// TestAShortShutdownTimeoutIsWarnedOf: with the API role, a shutdown
// bound shorter than a request may take cuts requests off at shutdown,
// and serve says so as it starts; without the API role, and in the
// operator commands, there is nothing to cut, and no warning.
func TestAShortShutdownTimeoutIsWarnedOf(t *testing.T) {
	const warning = "CROWNS_SHUTDOWN_TIMEOUT is shorter than a request may take"
	for _, tc := range []struct {
		roles, timeout, startedLine string
		warned                      bool
	}{
		{"api", "5s", "API listening", true},
		{"api", "20s", "API listening", false},
		{"scheduler", "5s", "scheduler started", false},
	} {
		env := map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_ROLES": tc.roles, "CROWNS_SHUTDOWN_TIMEOUT": tc.timeout}
		n := startServeUntil(t, env, nil, tc.startedLine)
		if got := strings.Contains(n.stderr.String(), warning); got != tc.warned {
			t.Errorf("roles %s, CROWNS_SHUTDOWN_TIMEOUT=%s: warned %v, want %v:\n%s", tc.roles, tc.timeout, got, tc.warned, n.stderr.String())
		}
		n.stop(t)
	}
	env := map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_SHUTDOWN_TIMEOUT": "5s"}
	if code, _, stderr := runCrowns(env, "keys", "list"); code != exitOK || strings.Contains(stderr, warning) {
		t.Errorf("keys list with a short shutdown bound: exit %d:\n%s", code, stderr)
	}
}

func TestServeDrainsRequestsInFlightOnShutdown(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/clans" { // the catalog refresh's lists answer at once
			close(arrived)
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"items":[],"paging":{"cursors":{}}}`))
	}))
	defer upstream.Close()
	dataDir := t.TempDir()
	env := map[string]string{
		"CROWNS_DATA_DIR":       dataDir,
		"CROWNS_UPSTREAM_URL":   upstream.URL + "/v1",
		"CROWNS_UPSTREAM_TOKEN": "token",
	}
	key := issueKeyWithCLI(t, env)
	n := startServe(t, env)

	status := make(chan int, 1)
	go func() { status <- getJSON(t, n.url("/clan/search?name=royal"), "Bearer "+key, nil) }()
	<-arrived
	n.cancel() // SIGTERM while the request waits on the upstream
	n.cancel = nil
	waitForLog(t, n.stderr, "draining API requests")
	close(release)
	if got := <-status; got != http.StatusOK {
		t.Fatalf("the request in flight at shutdown got %d, want 200", got)
	}
	select {
	case code := <-n.exit:
		if code != exitOK {
			t.Fatalf("serve exited with %d", code)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not stop")
	}
	if _, err := http.Get(n.url("/healthz")); err == nil {
		t.Fatal("the API still answers after shutdown")
	}
	// The request drained at shutdown is counted in the key's usage: the
	// last flush comes after the last request.
	if n := clanSearchesCounted(t, env); n != 1 {
		t.Fatalf("usage after shutdown: %d searches, want the drained /clan/search counted once", n)
	}
}

// TestServeSecondStopSignalCutsTheDrain: a second stop signal while a
// request is being drained ends serve without waiting for the game API to
// answer that request (exit 0, a line saying so), where the first alone
// waits for its answer: the request is cut, answered 503, and counted in
// its key's usage before the last flush; the API's shutdown line counts it.
func TestServeSecondStopSignalCutsTheDrain(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	var first sync.Once // the client tries a search again when its first try times out
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/clans" { // the catalog refresh's lists answer at once
			first.Do(func() { close(arrived) })
			<-release
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"items":[],"paging":{"cursors":{}}}`))
	}))
	defer upstream.Close()
	defer close(release)
	env := map[string]string{
		"CROWNS_DATA_DIR":         t.TempDir(),
		"CROWNS_UPSTREAM_URL":     upstream.URL + "/v1",
		"CROWNS_UPSTREAM_TOKEN":   "token",
		"CROWNS_SHUTDOWN_TIMEOUT": "1m",
	}
	key := issueKeyWithCLI(t, env)
	n := startServe(t, env)

	answered := make(chan int, 1)
	go func() {
		req, err := http.NewRequest(http.MethodGet, n.url("/clan/search?name=royal"), nil)
		if err != nil {
			answered <- 0
			return
		}
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		_ = resp.Body.Close()
		answered <- resp.StatusCode
	}()
	<-arrived
	n.cancel() // the first stop signal: the request is drained
	n.cancel = nil
	waitForLog(t, n.stderr, "draining API requests")
	n.hurry() // the second, while the upstream still holds the request
	select {
	case code := <-n.exit:
		if code != exitOK {
			t.Fatalf("serve exited with %d:\n%s", code, n.stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("serve did not stop after the second stop signal")
	}
	if !strings.Contains(n.stderr.String(), "second stop signal") {
		t.Fatalf("no line says the second stop signal cut the drain:\n%s", n.stderr.String())
	}
	const cut = `outcome="stopped waiting at the second stop signal" requestsCut=1`
	if line := lineContaining(n.stderr.String(), `msg="API drained"`); !strings.Contains(line, cut) {
		t.Fatalf("the API's shutdown line %q, want it to say %s", line, cut)
	}
	if n := clanSearchesCounted(t, env); n != 1 {
		t.Fatalf("usage after shutdown: %d searches, want the cut /clan/search counted once", n)
	}
	select {
	case status := <-answered:
		if status != http.StatusServiceUnavailable {
			t.Fatalf("the request cut by the second stop signal got %d, want 503", status)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the request cut by the second stop signal was never answered")
	}
}

// waitForLog polls the log until it contains line, within a minute.
func waitForLog(t *testing.T, log *watchedBuffer, line string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(log.String(), line) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never said %q:\n%s", line, log.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// issueKeyWithCLI runs `crowns keys issue` against env's database.
func issueKeyWithCLI(t *testing.T, env map[string]string) string {
	t.Helper()
	stdout, stderr := newWatchedBuffer(""), newWatchedBuffer("")
	if code := run(context.Background(), []string{"keys", "issue", "--discord-user", "42"}, testCLI(stdout, stderr, env)); code != exitOK {
		t.Fatalf("keys issue: exit %d: %s", code, stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

// TestServeWritesAccessLinesInTheConfiguredFormat: the API's access lines
// (written by its fast access log) are in the format of every other line.
func TestServeWritesAccessLinesInTheConfiguredFormat(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			n := startServe(t, map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_LOG_FORMAT": format})
			req, err := http.NewRequest(http.MethodGet, n.url("/healthz"), nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-Request-Id", "access-"+format)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			waitForLog(t, n.stderr, "access-"+format)
			line := lineContaining(n.stderr.String(), "access-"+format)
			if format == "text" {
				want := "level=INFO msg=request requestId=access-text method=GET route=/healthz status=200 latency="
				if !strings.HasPrefix(line, "time=") || !strings.Contains(line, want) {
					t.Fatalf("access line %q, want %q", line, want)
				}
				return
			}
			var entry struct {
				Level, Msg, RequestID, Method, Route string
				Status                               int
				Latency                              string
			}
			if err := json.Unmarshal([]byte(line), &entry); err != nil {
				t.Fatalf("access line %q is not JSON: %v", line, err)
			}
			latency, err := time.ParseDuration(entry.Latency)
			if entry.Level != "INFO" || entry.Msg != "request" || entry.RequestID != "access-json" || entry.Route != "/healthz" || entry.Status != http.StatusOK || err != nil || latency <= 0 {
				t.Fatalf("access line %q: %+v", line, entry)
			}
		})
	}
}

// lineContaining is the first line of text that contains s.
func lineContaining(text, s string) string {
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// clanSearchesCounted is the /clan/search requests in the usage of
// Discord user 42's key, as crowns keys stats prints them.
func clanSearchesCounted(t *testing.T, env map[string]string) int64 {
	t.Helper()
	stdout, stderr := newWatchedBuffer(""), newWatchedBuffer("")
	if code := run(context.Background(), []string{"keys", "stats", "--discord-user", "42", "--json"}, testCLI(stdout, stderr, env)); code != exitOK {
		t.Fatalf("keys stats: exit %d: %s", code, stderr.String())
	}
	var stats struct {
		Routes map[string]int64 `json:"routes"`
	}
	if err := json.Unmarshal([]byte(stdout.String()), &stats); err != nil {
		t.Fatalf("keys stats --json: %v\n%s", err, stdout.String())
	}
	return stats.Routes["/clan/search"]
}
