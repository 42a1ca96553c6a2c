package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/valyala/fasthttp"
)

// cannedServer answers GET /N with N bytes from answers rendered in
// advance (GET /N/close adds Connection: close and closes), allocating
// nothing per request, so that allocation counts are the client's.
type cannedServer struct {
	ln      net.Listener
	answers map[int][]byte
	closing map[int][]byte
	dials   atomic.Int64
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   []net.Conn
}

func newCannedServer(t *testing.T, sizes ...int) *cannedServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &cannedServer{ln: ln, answers: map[int][]byte{}, closing: map[int][]byte{}}
	for _, n := range sizes {
		body := bytes.Repeat([]byte("x"), n)
		s.answers[n] = fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", n, body)
		s.closing[n] = fmt.Appendf(nil, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", n, body)
	}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(func() {
		_ = ln.Close()
		s.dropConnections()
		s.wg.Wait()
	})
	return s
}

func (s *cannedServer) addr() string { return s.ln.Addr().String() }

func (s *cannedServer) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.dials.Add(1)
		s.mu.Lock()
		s.conns = append(s.conns, conn)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serve(conn)
	}
}

// serve answers the requests of one connection.
func (s *cannedServer) serve(conn net.Conn) {
	defer s.wg.Done()
	defer conn.Close()
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadSlice('\n') // GET /N[/close] HTTP/1.1
		if err != nil {
			return
		}
		_, target, _ := bytes.Cut(line, []byte(" "))
		path, _, _ := bytes.Cut(target, []byte(" "))
		sizeText, closeAfter := bytes.CutSuffix(path[1:], []byte("/close"))
		n, _ := strconv.Atoi(string(sizeText))
		for { // the rest of the header
			if header, err := r.ReadSlice('\n'); err != nil || len(bytes.TrimSpace(header)) == 0 {
				break
			}
		}
		answer := s.answers[n]
		if closeAfter {
			answer = s.closing[n]
		}
		if _, err := conn.Write(answer); err != nil || closeAfter {
			return
		}
	}
}

// dropConnections closes every connection from the server's side.
func (s *cannedServer) dropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, conn := range s.conns {
		_ = conn.Close()
	}
	s.conns = nil
}

func (s *cannedServer) requests(suffix string, sizes ...int) []loadRequest {
	var requests []loadRequest
	for _, n := range sizes {
		requests = append(requests, loadRequest{uri: fmt.Appendf(nil, "http://%s/%d%s", s.addr(), n, suffix), key: "k", gzip: true})
	}
	return requests
}

func TestLoadClientReadsEveryBodyWhole(t *testing.T) {
	sizes := []int{0, 100, 5000, 20000, 70000}
	srv := newCannedServer(t, sizes...)
	client := newLoadClient(srv.addr(), 2)
	defer client.close()
	out := client.drive(context.Background(), srv.requests("", sizes...), http.StatusOK, 0, 10)
	if out.requests != 20 || out.errors != 0 {
		t.Fatalf("%d requests with %d errors, want 20 without", out.requests, out.errors)
	}
	if want := int64(4 * (0 + 100 + 5000 + 20000 + 70000)); out.bodyBytes != want {
		t.Fatalf("read %d body bytes, want %d", out.bodyBytes, want)
	}
	if wrong := client.drive(context.Background(), srv.requests("", 100), http.StatusNoContent, 0, 1); wrong.errors != 2 {
		t.Fatalf("answers of another status: %d errors, want 2", wrong.errors)
	}
}

// TestLoadConnAllocatesNothingPerAnswer: a connection reads answers of
// any size without allocating, so bodies of varied sizes cost the load
// what one fixed size does.
func TestLoadConnAllocatesNothingPerAnswer(t *testing.T) {
	srv := newCannedServer(t, 16500, 12000, 16400, 14000)
	conn := &loadConn{addr: srv.addr()}
	defer conn.close()
	requests := srv.requests("", 16500, 12000, 16400, 14000)
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	var header fasthttp.ResponseHeader
	next := 0
	ask := func() {
		req.Reset()
		req.SetRequestURIBytes(requests[next%len(requests)].uri)
		next++
		if _, err := conn.roundTrip(req, &header); err != nil {
			t.Fatal(err)
		}
	}
	for range len(requests) {
		ask()
	}
	if allocs := testing.AllocsPerRun(200, ask); allocs != 0 {
		t.Fatalf("%v allocations per answer", allocs)
	}
}

// TestLoadConnDialsAgainAfterAClose: answers with Connection: close, and
// a kept connection the server dropped, cost no error.
func TestLoadConnDialsAgainAfterAClose(t *testing.T) {
	srv := newCannedServer(t, 10)
	client := newLoadClient(srv.addr(), 1)
	defer client.close()
	if out := client.drive(context.Background(), srv.requests("/close", 10), http.StatusOK, 0, 3); out.errors != 0 {
		t.Fatalf("answers with Connection: close: %d errors", out.errors)
	}
	if out := client.drive(context.Background(), srv.requests("", 10), http.StatusOK, 0, 1); out.errors != 0 {
		t.Fatalf("after the closes: %d errors", out.errors)
	}
	srv.dropConnections()
	if out := client.drive(context.Background(), srv.requests("", 10), http.StatusOK, 0, 2); out.errors != 0 {
		t.Fatalf("after the server dropped the kept connection: %d errors", out.errors)
	}
	if n := srv.dials.Load(); n != 5 {
		t.Fatalf("%d connections made, want 5 (one per close or drop)", n)
	}
}
