package api_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
)

// heldSearch is game data whose clan search waits until released.
type heldSearch struct {
	arrived, release chan struct{}
}

func (g heldSearch) SearchClans(ctx context.Context, _ legacy.ClanSearchQuery) (legacy.ClanSearchPage, error) {
	close(g.arrived)
	select {
	case <-g.release:
		return legacy.ClanSearchPage{}, nil
	case <-ctx.Done():
		return legacy.ClanSearchPage{}, ctx.Err()
	}
}

func (heldSearch) PlayerBattles(context.Context, string) ([]legacy.Battle, error) {
	return nil, models.ErrNotFound
}

// patientDrain lets connections end on their own as long as the test
// needs: the drain ends once they have, not on the clock.
func patientDrain(c *api.Config) { c.DrainGrace = time.Hour }

// awaitDraining returns once the server at address has begun to drain:
// a new connection's answer then says Connection: close.
func awaitDraining(t *testing.T, address string) {
	t.Helper()
	for {
		conn, err := net.Dial("tcp", address)
		if err != nil {
			t.Fatalf("the listener closed before the connections drained: %v", err)
		}
		resp := rawExchange(t, conn, bufio.NewReader(conn), "GET /healthz HTTP/1.1\r\nHost: crowns\r\n\r\n")
		_ = readBody(t, resp)
		conn.Close()
		if resp.Close {
			return
		}
	}
}

// serveForShutdown serves h on a loopback port and returns its address and
// what Serve returned, once it has.
func serveForShutdown(t *testing.T, h *harness) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- h.server.Serve(ln) }()
	return ln.Addr().String(), served
}

// shutdownInBackground starts h's shutdown and returns the error it
// returned, once it has, or one saying it cut requests: its 30 s are
// enough for every request of these tests to be answered.
func shutdownInBackground(h *harness) <-chan error {
	shutdown := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		drained, err := h.server.Shutdown(ctx)
		if err == nil && drained.CutRequests != 0 {
			err = fmt.Errorf("shutdown cut %d requests, want none", drained.CutRequests)
		}
		shutdown <- err
	}()
	return shutdown
}

// keptAliveConnection dials address and makes one exchange on the
// connection, which the server keeps alive; it is closed with the test.
func keptAliveConnection(t *testing.T, address string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	reader := bufio.NewReader(conn)
	resp := rawExchange(t, conn, reader, "GET /healthz HTTP/1.1\r\nHost: crowns\r\n\r\n")
	_ = readBody(t, resp)
	if resp.Close || resp.StatusCode != http.StatusOK {
		t.Fatalf("first answer: %d, close %v", resp.StatusCode, resp.Close)
	}
	return conn, reader
}

// TestShutdownClosesKeepAliveConnectionsCleanly: an answer given while the
// server drains says Connection: close, and the server then closes the
// connection, so a keep-alive client never sends a request into a
// connection that is closing.
func TestShutdownClosesKeepAliveConnectionsCleanly(t *testing.T) {
	game := heldSearch{arrived: make(chan struct{}), release: make(chan struct{})}
	h := newHarness(t, harnessOptions{game: game, config: patientDrain})
	key := h.issue("1")
	address, served := serveForShutdown(t, h)

	conn, reader := keptAliveConnection(t, address)
	if _, err := conn.Write([]byte("GET /clan/search?name=royal HTTP/1.1\r\nHost: crowns\r\nauth: " + key + "\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	<-game.arrived

	shutdown := shutdownInBackground(h)
	awaitDraining(t, address)
	close(game.release)

	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(reader, nil)
	if err != nil {
		t.Fatalf("the answer in flight: %v", err)
	}
	_ = readBody(t, resp)
	expectClosingAnswer(t, "the answer in flight", resp, reader, shutdown, served)
}

// expectClosingAnswer checks that resp, given while the server drained,
// is a 200 that said Connection: close, that the server then closed the
// connection read by reader, and that its shutdown and Serve ended well.
func expectClosingAnswer(t *testing.T, what string, resp *http.Response, reader *bufio.Reader, shutdown, served <-chan error) {
	t.Helper()
	// resp.Close: the answer said Connection: close (net/http takes the
	// header out).
	if resp.StatusCode != http.StatusOK || !resp.Close {
		t.Fatalf("%s, while draining: %d, Connection: close %v; want 200 and close", what, resp.StatusCode, resp.Close)
	}
	if n, err := reader.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("after that answer the connection gave %d bytes, %v; want the server to close it", n, err)
	}
	if err := <-shutdown; err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// TestShutdownTellsAnIdleKeepAliveConnectionToClose: a client whose
// kept-alive connection is idle when the server begins to drain sends its
// next request on it as usual: it is answered, with Connection: close,
// and only then closed (not closed under the request, which the client
// would see as a reset).
func TestShutdownTellsAnIdleKeepAliveConnectionToClose(t *testing.T) {
	h := newHarness(t, harnessOptions{config: patientDrain})
	address, served := serveForShutdown(t, h)
	conn, reader := keptAliveConnection(t, address)

	shutdown := shutdownInBackground(h)
	awaitDraining(t, address)
	resp := rawExchange(t, conn, reader, "GET /healthz HTTP/1.1\r\nHost: crowns\r\n\r\n")
	_ = readBody(t, resp)
	expectClosingAnswer(t, "the idle connection's next request", resp, reader, shutdown, served)
}

// TestShutdownClosesAConnectionStillIdleAfterTheGrace: a keep-alive
// connection that sends nothing does not hold the shutdown back past the
// drain's grace: the server then closes it.
func TestShutdownClosesAConnectionStillIdleAfterTheGrace(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) { c.DrainGrace = 10 * time.Millisecond }})
	address, served := serveForShutdown(t, h)
	_, reader := keptAliveConnection(t, address)
	if err := <-shutdownInBackground(h); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	if n, err := reader.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("the idle connection after the shutdown gave %d bytes, %v; want it closed", n, err)
	}
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// stalledSearch is game data whose clan search waits until its context
// ends.
type stalledSearch struct{ arrived chan struct{} }

func (g stalledSearch) SearchClans(ctx context.Context, _ legacy.ClanSearchQuery) (legacy.ClanSearchPage, error) {
	close(g.arrived)
	<-ctx.Done()
	return legacy.ClanSearchPage{}, ctx.Err()
}

func (stalledSearch) PlayerBattles(context.Context, string) ([]legacy.Battle, error) {
	return nil, models.ErrNotFound
}

// TestShutdownCutsTheRequestsStillRunningWhenItsTimeIsUp: when Shutdown's
// context ends (the shutdown timeout, a second stop signal) with a request
// still running, that request's context ends too, so its game call stops
// at once rather than at the request's own deadline, and Shutdown returns
// only once its handler has: the request is answered 503, and counted in
// its key's usage by then, so the last flush, which comes after Shutdown,
// writes it.
func TestShutdownCutsTheRequestsStillRunningWhenItsTimeIsUp(t *testing.T) {
	game := stalledSearch{arrived: make(chan struct{})}
	h := newHarness(t, harnessOptions{game: game, config: func(c *api.Config) { c.RequestTimeout = time.Hour }})
	key := h.issue("1")
	address, served := serveForShutdown(t, h)
	conn, err := net.Dial("tcp", address)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /clan/search?name=royal HTTP/1.1\r\nHost: crowns\r\nauth: " + key + "\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	<-game.arrived

	timeUp, cancel := context.WithCancel(context.Background())
	cancel()
	if drained, err := h.server.Shutdown(timeUp); !errors.Is(err, context.Canceled) || drained.CutRequests != 1 {
		t.Fatalf("shutdown whose time was up with a request running: %v, %d requests cut; want context.Canceled and the request cut", err, drained.CutRequests)
	}
	ctx := context.Background()
	if err := h.keys.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	usage, err := h.keys.DeveloperUsage(ctx, "1", 30)
	if err != nil {
		t.Fatal(err)
	}
	if usage.Routes["/clan/search"] != 1 {
		t.Fatalf("usage written by the flush after Shutdown: %v, want the cut /clan/search counted once", usage.Routes)
	}
	if err := conn.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the cut request's answer: %v", err)
	}
	expectError(t, resp, http.StatusServiceUnavailable, "Temporarily unavailable")
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

// TestShutdownRightAfterServeBeganStopsIt: a stop signal as the server
// starts (Shutdown called before Serve has taken its listener in hand)
// stops it all the same: Serve returns and the listener is closed, rather
// than Serve serving on after Shutdown returned.
func TestShutdownRightAfterServeBeganStopsIt(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- h.server.Serve(ln) }()
	if _, err := h.server.Shutdown(context.Background()); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve still serves after Shutdown returned")
	}
	if conn, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		conn.Close()
		t.Fatal("the listener still takes connections after Shutdown and Serve returned")
	}
}
