package api_test

import (
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// exhaustedListener fails its first accepts as the kernel does when the
// process has no file left to open, then accepts as the listener it wraps.
type exhaustedListener struct {
	net.Listener
	mu     sync.Mutex
	failed int
	fail   int
}

func (l *exhaustedListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if l.failed < l.fail {
		l.failed++
		l.mu.Unlock()
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	l.mu.Unlock()
	return l.Listener.Accept()
}

// An accept that fails for want of open files (EMFILE: a burst of
// connections past the process's limit) is tried again after a wait, and
// logged once with its recovery: the server goes on serving. fasthttp
// takes any accept error but a timeout as the end of its listener, so the
// API stopped for good, and with it the whole process.
func TestAnAcceptOutOfOpenFilesIsTriedAgain(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &exhaustedListener{Listener: tcp, fail: 4}
	served := make(chan error, 1)
	go func() { served <- h.server.Serve(ln) }()
	t.Cleanup(func() { _ = h.server.App().Shutdown() })

	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + tcp.Addr().String() + "/healthz")
	if err != nil {
		t.Fatalf("after the failed accepts: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v after the failed accepts, want it serving", err)
	default:
	}
	logs := h.logs.String()
	if strings.Count(logs, `level=WARN msg="cannot accept connections`) != 1 || !strings.Contains(logs, "too many open files") ||
		!strings.Contains(logs, "accepting connections again") || !strings.Contains(logs, "failedAttempts=4") {
		t.Errorf("logs:\n%s\nwant one warning of the failures (the others at DEBUG), with the error, and the recovery after 4", logs)
	}
}
