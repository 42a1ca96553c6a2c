package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// loadRequest is one request of a route's rotation.
type loadRequest struct {
	// uri is the full URL, http://host:port/path?query.
	uri []byte
	// key is sent in the auth header; none when empty.
	key string
	// gzip sends Accept-Encoding: gzip, as most clients (Go's
	// http.Transport, browsers, curl --compressed) do.
	gzip bool
}

// loadOutcome is what one route's load produced.
type loadOutcome struct {
	requests  int64
	errors    int64
	bodyBytes int64
	elapsed   time.Duration
	latency   latencyHistogram
}

// perSecond is the outcome's requests a second.
func (o loadOutcome) perSecond() float64 {
	if o.elapsed <= 0 {
		return 0
	}
	return float64(o.requests) / o.elapsed.Seconds()
}

// add accumulates another outcome of the same route.
func (o *loadOutcome) add(other loadOutcome) {
	o.requests += other.requests
	o.errors += other.errors
	o.bodyBytes += other.bodyBytes
	o.elapsed += other.elapsed
	o.latency.merge(&other.latency)
}

// loadClient drives keep-alive load at one server: connections goroutines
// in a closed loop, each with its own connection, each sending its next
// request as soon as the previous answer is read.
//
// A connection writes requests and parses answer headers with fasthttp's
// own Request.Write and ResponseHeader.Read, as its HostClient does, but
// reads each body through a buffer of its own. HostClient takes a body
// buffer from a process-wide pool per answer, sized by the bodies the
// pool has seen, and allocates anew for a body larger than that: bodies
// whose sizes vary around a power of two (Crowns' real answers) then cost
// the load generator allocations, and the whole process collections,
// that bodies of one fixed size (the bare routes') do not. (Measured on
// a bare server: 25 bodies of 12.0–16.8 kB were answered 15% slower than
// one body of 14.7 kB, at 3–4 kB allocated per request against none.)
//
// The connections stay open from one drive to the next; drives of one
// client are not run at once.
type loadClient struct {
	conns []*loadConn
}

func newLoadClient(addr string, connections int) *loadClient {
	l := &loadClient{}
	for range connections {
		l.conns = append(l.conns, &loadConn{addr: addr})
	}
	return l
}

// loadTimeout bounds each read and write of the load.
const loadTimeout = 30 * time.Second

// drive sends requests in rotation until duration has passed (or ctx
// ends): goroutine w starts at the w-th part of the rotation. An answer
// whose status is not want, or a transport error, counts as an error.
// With rounds > 0 it stops instead after each goroutine has sent rounds
// requests (a warm-up pass).
func (l *loadClient) drive(ctx context.Context, requests []loadRequest, want int, duration time.Duration, rounds int) loadOutcome {
	outcomes := make([]loadOutcome, len(l.conns))
	start := time.Now()
	deadline := start.Add(duration)
	var wg sync.WaitGroup
	for w, conn := range l.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[w] = conn.loop(ctx, requests, w*len(requests)/len(l.conns), want, deadline, rounds)
		}()
	}
	wg.Wait()
	var total loadOutcome
	for i := range outcomes {
		total.requests += outcomes[i].requests
		total.errors += outcomes[i].errors
		total.bodyBytes += outcomes[i].bodyBytes
		total.latency.merge(&outcomes[i].latency)
	}
	total.elapsed = time.Since(start)
	return total
}

// close drops the connections.
func (l *loadClient) close() {
	for _, conn := range l.conns {
		conn.close()
	}
}

// loadConn is one keep-alive connection of the load, dialled on first use
// and again after a failure or a "Connection: close".
type loadConn struct {
	addr string
	conn net.Conn
	r    *bufio.Reader
	w    *bufio.Writer
	// body is the buffer bodies are read into, loadChunkBytes long.
	body []byte
}

// loop is one connection's closed loop.
func (c *loadConn) loop(ctx context.Context, requests []loadRequest, next, want int, deadline time.Time, rounds int) loadOutcome {
	var out loadOutcome
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	var header fasthttp.ResponseHeader
	for sent := 0; rounds <= 0 || sent < rounds; sent++ {
		r := &requests[next%len(requests)]
		next++
		req.Reset()
		req.SetRequestURIBytes(r.uri)
		if r.key != "" {
			req.Header.Set("auth", r.key)
		}
		if r.gzip {
			req.Header.Set(fasthttp.HeaderAcceptEncoding, "gzip")
		}
		began := time.Now()
		if (rounds <= 0 && !began.Before(deadline)) || ctx.Err() != nil {
			break
		}
		body, err := c.roundTrip(req, &header)
		out.latency.record(time.Since(began))
		out.requests++
		if err != nil || header.StatusCode() != want {
			out.errors++
			continue
		}
		out.bodyBytes += int64(body)
	}
	return out
}

// roundTrip sends req and reads its answer: the header into header, the
// body through c.body; it returns the body's length. A kept connection that
// fails (the server may have closed it while idle) is dialled again and
// the request sent once more, as HostClient does for a GET.
func (c *loadConn) roundTrip(req *fasthttp.Request, header *fasthttp.ResponseHeader) (int, error) {
	reused := c.conn != nil
	n, err := c.tryOnce(req, header)
	if err != nil && reused {
		n, err = c.tryOnce(req, header)
	}
	return n, err
}

func (c *loadConn) tryOnce(req *fasthttp.Request, header *fasthttp.ResponseHeader) (int, error) {
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.addr, loadTimeout)
		if err != nil {
			return 0, err
		}
		c.conn, c.r, c.w = conn, bufio.NewReader(conn), bufio.NewWriter(conn)
	}
	n, err := c.exchange(req, header)
	if err != nil || header.ConnectionClose() {
		c.close()
	}
	return n, err
}

// exchange writes req on the connection and reads the answer.
func (c *loadConn) exchange(req *fasthttp.Request, header *fasthttp.ResponseHeader) (int, error) {
	if err := c.conn.SetDeadline(time.Now().Add(loadTimeout)); err != nil {
		return 0, err
	}
	if err := req.Write(c.w); err != nil {
		return 0, err
	}
	if err := c.w.Flush(); err != nil {
		return 0, err
	}
	header.Reset()
	if err := header.Read(c.r); err != nil {
		return 0, err
	}
	length := header.ContentLength()
	if length < 0 {
		return 0, fmt.Errorf("answer without a Content-Length (%d)", length)
	}
	// The body is read and dropped a chunk at a time: only its length
	// counts.
	if c.body == nil {
		c.body = make([]byte, loadChunkBytes)
	}
	for rest := length; rest > 0; {
		n, err := io.ReadFull(c.r, c.body[:min(rest, len(c.body))])
		if err != nil {
			return length - rest + n, err
		}
		rest -= n
	}
	return length, nil
}

// loadChunkBytes is the size of a connection's body buffer: a body is read
// into it a chunk at a time.
const loadChunkBytes = 64 << 10

// close drops the connection, if any.
func (c *loadConn) close() {
	if c.conn != nil {
		_ = c.conn.Close()
		c.conn = nil
	}
}
