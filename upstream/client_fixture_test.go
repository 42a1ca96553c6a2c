package upstream_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/upstream"
)

// testToken is the Bearer token of test clients; no log line may carry it.
const testToken = "tok-3f9a1c77e2-secret"

// logBuffer collects log output; safe for concurrent writers.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newClient is a client of baseURL with quick retries, logging into the
// returned buffer. cfg's zero fields take test defaults.
func newClient(t testing.TB, baseURL string, cfg upstream.Config) (*upstream.Client, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	cfg.BaseURL = baseURL
	if cfg.Token == "" {
		cfg.Token = testToken
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	client, err := upstream.New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return client, logs
}

// fakeUpstream serves handler under /v1 and returns its base URL.
func fakeUpstream(t testing.TB, handler http.HandlerFunc) string {
	t.Helper()
	server := httptest.NewServer(handler)
	t.Cleanup(server.Close)
	return server.URL + "/v1"
}

// answerFile answers 200 with a file of testdata.
func answerFile(t *testing.T, name string) http.HandlerFunc {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}
}
