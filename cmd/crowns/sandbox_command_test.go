package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

// watchedBuffer collects output and closes seen once it contains want.
type watchedBuffer struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
}

func newWatchedBuffer(want string) *watchedBuffer {
	return &watchedBuffer{want: want, seen: make(chan struct{})}
}

func (b *watchedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	had := strings.Contains(b.buf.String(), b.want)
	n, err := b.buf.Write(p)
	if !had && strings.Contains(b.buf.String(), b.want) {
		close(b.seen)
	}
	return n, err
}

func (b *watchedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// freeAddr is a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := listener.Addr().String()
	listener.Close()
	return addr
}

func testCLI(stdout, stderr interface{ Write([]byte) (int, error) }, env map[string]string) cli {
	return cli{
		getenv: func(name string) string { return env[name] },
		environ: func() []string {
			var entries []string
			for name, value := range env {
				entries = append(entries, name+"="+value)
			}
			return entries
		},
		stdout: stdout,
		stderr: stderr,
		clock:  models.NewManualClock(time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)),
	}
}

// startSandboxCommand runs crowns sandbox on addr with the further
// arguments and environment until it says it is serving; cancel stops it,
// and exit then gives its exit code.
func startSandboxCommand(t *testing.T, addr string, env map[string]string, args ...string) (stderr *watchedBuffer, cancel context.CancelFunc, exit <-chan int) {
	t.Helper()
	stderr = newWatchedBuffer("sandbox serving")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	exited := make(chan int, 1)
	go func() {
		exited <- run(ctx, append([]string{"sandbox", "--addr", addr}, args...), testCLI(&bytes.Buffer{}, stderr, env))
	}()
	select {
	case <-stderr.seen:
	case code := <-exited:
		t.Fatalf("sandbox exited with %d: %s", code, stderr.String())
	}
	return stderr, cancel, exited
}

func TestSandboxCommandServesTheWorld(t *testing.T) {
	addr := freeAddr(t)
	stderr, cancel, exit := startSandboxCommand(t, addr, map[string]string{"CROWNS_TRACK_ADDRESS": "tracked.example"}, "--seed", "99")
	out := stderr.String()
	baseURL := "http://" + addr + "/v1"
	if !strings.Contains(out, "url="+baseURL) {
		t.Fatalf("the log does not give the base URL %s:\n%s", baseURL, out)
	}
	clan := regexp.MustCompile(`trackableClan=(\w+)`).FindStringSubmatch(out)
	player := regexp.MustCompile(`player=(\w+)`).FindStringSubmatch(out)
	tournament := regexp.MustCompile(`tournament=(\w+)`).FindStringSubmatch(out)
	if clan == nil || player == nil || tournament == nil {
		t.Fatalf("the log lacks sample tags:\n%s", out)
	}

	var got struct {
		Description string `json:"description"`
	}
	if status := getJSON(t, baseURL+"/clans/%23"+clan[1], "Bearer anything", &got); status != http.StatusOK {
		t.Fatalf("sample clan: status %d", status)
	}
	if !strings.Contains(strings.ToLower(got.Description), "tracked.example") {
		t.Errorf("sample clan description %q lacks CROWNS_TRACK_ADDRESS", got.Description)
	}
	for _, path := range []string{"/players/%23" + player[1] + "/battlelog", "/tournaments/%23" + tournament[1]} {
		if status := getJSON(t, baseURL+path, "Bearer anything", nil); status != http.StatusOK {
			t.Errorf("GET %s: status %d", path, status)
		}
	}
	if status := getJSON(t, baseURL+"/cards", "", nil); status != http.StatusForbidden {
		t.Errorf("without a token: status %d, want 403", status)
	}

	cancel()
	if code := <-exit; code != exitOK {
		t.Fatalf("exit code %d after the context ended, want 0:\n%s", code, stderr.String())
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("the sandbox still listens after it stopped")
	}
}

func getJSON(t *testing.T, url, authorization string, into any) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if into != nil {
		if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
			t.Fatal(err)
		}
	}
	return resp.StatusCode
}

// TestSandboxCommandLogsInTheConfiguredFormat: with CROWNS_LOG_FORMAT=json
// every line the sandbox writes is a JSON record, as crowns serve's are;
// a bad CROWNS_LOG_FORMAT is refused as crowns serve refuses it.
func TestSandboxCommandLogsInTheConfiguredFormat(t *testing.T) {
	addr := freeAddr(t)
	stderr, cancel, exit := startSandboxCommand(t, addr, map[string]string{"CROWNS_LOG_FORMAT": "json"})
	cancel()
	if code := <-exit; code != exitOK {
		t.Fatalf("exit code %d, want 0:\n%s", code, stderr.String())
	}
	records := jsonLines(t, "stderr", stderr.String())
	if url := recordOf(t, records, "sandbox serving the game API (any Bearer token is accepted)")["url"]; url != "http://"+addr+"/v1" {
		t.Errorf("url %v, want the base URL", url)
	}
	recordOf(t, records, "sandbox stopped")

	var stdout, refused bytes.Buffer
	code := run(context.Background(), []string{"sandbox", "--addr", freeAddr(t)}, testCLI(&stdout, &refused, map[string]string{"CROWNS_LOG_FORMAT": "xml"}))
	if code != exitUsage || !strings.Contains(refused.String(), "CROWNS_LOG_FORMAT") {
		t.Fatalf("CROWNS_LOG_FORMAT=xml: exit %d, stderr %q", code, refused.String())
	}
}

func TestSandboxCommandRejectsBadArguments(t *testing.T) {
	tests := [][]string{
		{"--addr"},
		{"--nope"},
		{"--addr", "no-port-here"},
		{"--addr", "127.0.0.1:99999"},
		{"--seed", "many"},
		{"extra"},
	}
	for _, args := range tests {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), append([]string{"sandbox"}, args...), testCLI(&stdout, &stderr, nil))
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
		if lines := strings.Count(strings.TrimSpace(stderr.String()), "\n"); lines != 0 || !strings.HasPrefix(stderr.String(), "crowns sandbox: ") {
			t.Errorf("%v: stderr %q, want one line", args, stderr.String())
		}
	}
}

func TestSandboxCommandFailsOnATakenPort(t *testing.T) {
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"sandbox", "--addr", listener.Addr().String()}, testCLI(&stdout, &stderr, nil))
	if code != exitFailure || !strings.Contains(stderr.String(), "cannot listen") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}
