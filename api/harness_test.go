package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// testSupportInfo is the configured "info" text of error bodies.
const testSupportInfo = "see the test README"

// tagUnknown is a clan and player tag the sandbox does not have.
const tagUnknown = "9999"

// harness is a real API server over real parts: the key service and the
// clan store on a test database, the tracker, and the upstream client
// against the sandbox world (or another upstream) over HTTP, with a
// hand-moved clock.
type harness struct {
	t        testing.TB
	server   *api.Server
	db       *store.Store
	clans    *store.Store
	keys     *keys.Service
	clock    *models.ManualClock
	world    *sandbox.World
	upstream *countingUpstream
	logs     *syncBuffer
	// tournaments is the tournament store the server saves lookups in and
	// answers the lists from.
	tournaments *store.Store
	// client is the upstream client of the server, for parts that work
	// beside it (the tournament refresher).
	client *upstream.Client
	// deps are the dependencies the server was built with.
	deps api.Dependencies
}

// harnessOptions adjust the server a harness builds.
type harnessOptions struct {
	engine   store.Dialect
	config   func(*api.Config)
	upstream http.Handler // default: the sandbox world
	game     api.GameData // replaces the upstream client entirely
	// db replaces the fresh test database (e.g. one behind a fault
	// proxy); keys adjusts the key service's config.
	db   *store.Store
	keys func(*keys.Config)
	// directAccessLog has the server write its INFO access lines to the
	// captured logs itself (Config.AccessLines), as crowns serve does,
	// instead of through the logger.
	directAccessLog bool
	// history, when set, wraps the clan history reader the server reads
	// (a hook inside a read, say).
	history func(api.ClanHistoryReader) api.ClanHistoryReader
}

func newHarness(t testing.TB, opts harnessOptions) *harness {
	t.Helper()
	if opts.engine == "" {
		opts.engine = store.DialectSQLite
	}
	clock := models.NewManualClock(time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC))
	h := &harness{t: t, clock: clock, logs: &syncBuffer{}}
	h.db = opts.db
	if h.db == nil {
		h.db = storetest.Open(t, opts.engine)
	}
	log := slog.New(slog.NewTextHandler(h.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	keysConfig := keys.Config{Secret: bytes.Repeat([]byte{7}, 32), Clock: clock, Logger: log}
	if opts.keys != nil {
		opts.keys(&keysConfig)
	}
	service, err := keys.NewService(h.db, keysConfig)
	if err != nil {
		t.Fatal(err)
	}
	h.keys = service

	h.world = sandbox.NewWorld(sandbox.Config{Clock: clock, Clans: 400})
	handler := opts.upstream
	if handler == nil {
		handler = h.world.Handler()
	}
	h.upstream = &countingUpstream{next: handler}
	upstreamServer := httptest.NewServer(h.upstream)
	t.Cleanup(upstreamServer.Close)
	client, err := upstream.New(upstream.Config{
		BaseURL: upstreamServer.URL + "/v1", Token: "test", Timeout: 2 * time.Second,
		Backoff: time.Millisecond, Logger: log, Clock: clock,
	})
	if err != nil {
		t.Fatal(err)
	}
	h.client = client
	var game api.GameData = client
	if opts.game != nil {
		game = opts.game
	}
	h.clans = h.db
	tracker := gameTracker{clans: h.clans, game: client, address: sandbox.DefaultTrackAddress, clock: clock}
	h.tournaments = h.db

	cfg := api.Config{
		SupportInfo:        testSupportInfo,
		RateLimitPerSecond: 1000,
		RateLimitBurst:     1000,
		CacheTTL:           3 * time.Minute,
		CacheBytes:         8 << 20,
		AccessLog:          true,
		Clock:              clock,
		Logger:             log,
	}
	if opts.directAccessLog {
		cfg.AccessLines = h.logs
	}
	if opts.config != nil {
		opts.config(&cfg)
	}
	h.deps = api.Dependencies{Keys: service, Game: game, Health: h.db, Tracker: tracker, History: h.clans,
		TournamentSource: client, TournamentStore: h.tournaments, Usage: service, UsageReports: service, Leaks: service}
	if opts.history != nil {
		h.deps.History = opts.history(h.deps.History)
	}
	server, err := api.New(cfg, h.deps)
	if err != nil {
		t.Fatal(err)
	}
	h.server = server
	return h
}

// issue returns a fresh key of a new developer.
func (h *harness) issue(discordUserID string) string {
	h.t.Helper()
	issued, err := h.keys.IssueOrRemind(context.Background(), keys.Developer{DiscordUserID: discordUserID, DisplayName: "dev " + discordUserID}, "test")
	if err != nil {
		h.t.Fatal(err)
	}
	return issued.Key
}

// get sends a GET through the real Fiber app; headers come in name, value
// pairs.
func (h *harness) get(path string, headers ...string) *http.Response {
	h.t.Helper()
	return h.do(http.MethodGet, path, headers...)
}

func (h *harness) do(method, path string, headers ...string) *http.Response {
	h.t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.server.App().Test(req, -1)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// errorBody is the contract's error body, decoded.
type errorBody struct {
	Error      bool   `json:"error"`
	StatusCode int    `json:"statusCode"`
	StatusText string `json:"statusText"`
	Info       string `json:"info"`
	EventID    string `json:"eventId"`
}

// expectError checks status, content type and the error body of resp.
func expectError(t *testing.T, resp *http.Response, status int, text string) errorBody {
	t.Helper()
	raw := readBody(t, resp)
	if resp.StatusCode != status {
		t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, status, raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type = %q, want application/json", ct)
	}
	var body errorBody
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("error body %q does not decode: %v", raw, err)
	}
	want := errorBody{Error: true, StatusCode: status, StatusText: text, Info: testSupportInfo, EventID: body.EventID}
	if body != want {
		t.Fatalf("error body = %+v, want %+v", body, want)
	}
	// Exactly the contract's fields: eventId on a 500 only.
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatalf("error body %q is not an object: %v", raw, err)
	}
	wantFields := 4
	if status == http.StatusInternalServerError {
		wantFields = 5
	}
	if _, hasEventID := fields["eventId"]; len(fields) != wantFields || hasEventID != (wantFields == 5) {
		t.Fatalf("error body %s: want the fields error, statusCode, statusText, info, and eventId on a 500 only", raw)
	}
	return body
}

func readBody(t testing.TB, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// decodeJSON reads a 200 answer into v.
func decodeJSON(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	raw := readBody(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d, want 200; body %s", resp.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("body %q does not decode: %v", raw, err)
	}
}

// countingUpstream counts the requests that reach the upstream, per path.
type countingUpstream struct {
	next  http.Handler
	total atomic.Int64
	mu    sync.Mutex
	paths map[string]int
}

func (u *countingUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.total.Add(1)
	u.mu.Lock()
	if u.paths == nil {
		u.paths = make(map[string]int)
	}
	u.paths[r.URL.EscapedPath()]++
	u.mu.Unlock()
	u.next.ServeHTTP(w, r)
}

func (u *countingUpstream) count(escapedPath string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.paths[escapedPath]
}

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// contains reports whether the captured logs mention s.
func (b *syncBuffer) contains(s string) bool { return strings.Contains(b.String(), s) }

// lineWith is the first captured log line that mentions s; "" when none
// does.
func (b *syncBuffer) lineWith(s string) string {
	for line := range strings.Lines(b.String()) {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// serveOnLoopback serves the harness's real app on a loopback port.
func serveOnLoopback(t *testing.T, server *api.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- server.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = server.Shutdown(ctx)
		if err := <-done; err != nil && !errors.Is(err, net.ErrClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}
