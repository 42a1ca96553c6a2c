package api

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/internal/outage"
)

// DefaultMaxConnsPerAddress is how many connections one client address
// may hold open at once when Config.MaxConnsPerAddress is zero.
const DefaultMaxConnsPerAddress = 256

// refusalWriteTimeout bounds the write of the answer to a connection
// refused for its address's limit.
const refusalWriteTimeout = time.Second

// connectionLimit lets each client address hold at most limit
// connections open. Its listener (see listener) answers a connection past
// the limit the contract's 429 and closes it at once.
//
// The connections it lets in are fasthttp's own *net.TCPConn, never
// wrapped: fasthttp sends a response larger than its write buffer with one
// writev only on such a connection (a wrapped one cost two writes per
// answer over 4 KiB: 16.1 µs of the server's CPU per 15 KiB answer
// instead of 14.0 µs under wrk). A connection's place is given back by the
// server's connection-state hook when the server closes it (see
// connectionStateHook), which New installs before the server serves
// anything.
type connectionLimit struct {
	limit int
	// proxies are let in without count (see trustedProxies).
	proxies trustedProxies
	// refusalHead and refusalBody are the HTTP answer written to a
	// refused connection, but for its Date and X-Request-Id (see refuse).
	refusalHead, refusalBody []byte
	// ids names refused connections' answers.
	ids *requestIDs
	// refused, when set, counts each connection refused.
	refused func()

	mu   sync.Mutex
	open map[string]int
	// admitted are the connections let in and not yet closed, with their
	// address ("" for a trusted proxy's, which count against no limit).
	admitted map[net.Conn]string
}

// newConnectionLimit is a limit of connections per address, but for
// those of proxies; body is the JSON error body of the 429, ids names its
// answers.
func newConnectionLimit(limit int, proxies []netip.Prefix, body []byte, ids *requestIDs) *connectionLimit {
	head := fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nRetry-After: 1\r\nX-Ratelimit-Retry-After: 1000\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n",
		http.StatusTooManyRequests, http.StatusText(http.StatusTooManyRequests), len(body))
	return &connectionLimit{
		limit: limit, proxies: proxies, refusalHead: head, refusalBody: body, ids: ids,
		open: make(map[string]int), admitted: make(map[net.Conn]string),
	}
}

// listener is ln letting in only the connections within the limit; an
// accept that fails for want of a resource is tried again (see
// outOfResources), its failures logged to failures.
func (l *connectionLimit) listener(ln net.Listener, failures *outage.Log) *limitedListener {
	closing, stop := context.WithCancel(context.Background())
	return &limitedListener{Listener: ln, limit: l, failures: failures, retry: acceptRetry, closing: closing, stop: stop}
}

// limitedListener is a listener under a connectionLimit.
type limitedListener struct {
	net.Listener
	limit    *connectionLimit
	failures *outage.Log
	// retry is the wait between failed accepts (acceptRetry).
	retry backoff.Policy
	// closing ends with Close, and with it a wait between failed accepts.
	closing context.Context
	stop    context.CancelFunc
	// failed counts the accepts failed in a row. Accept is called by the
	// server's one accepting goroutine.
	failed int
}

// Accept returns the next connection whose address is within its limit.
// An accept that fails for want of a resource is tried again after a
// wait (retry), which Close cuts short; any other failure, the listener
// closed among them, is the end of the listener.
func (ll *limitedListener) Accept() (net.Conn, error) {
	for {
		conn, err := ll.Listener.Accept()
		if err != nil && outOfResources(err) {
			ll.failed++
			wait := ll.retry.Delay(ll.failed)
			ll.failures.Failed(context.Background(), err, "retryIn", wait)
			if !backoff.Wait(ll.closing, wait) {
				return nil, &net.OpError{Op: "accept", Net: ll.Addr().Network(), Addr: ll.Addr(), Err: net.ErrClosed}
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if ll.failed > 0 {
			ll.failed = 0
			ll.failures.Succeeded(context.Background())
		}
		if ll.limit.admit(conn) {
			return conn, nil
		}
		go ll.limit.refuse(conn)
	}
}

// Close closes the listener, cutting short a wait between failed
// accepts: the server returns at once rather than after it.
func (ll *limitedListener) Close() error {
	ll.stop()
	return ll.Listener.Close()
}

// admit counts conn against its address's limit, and tells whether it is
// within; a trusted proxy's connection is let in uncounted.
func (l *connectionLimit) admit(conn net.Conn) bool {
	address := ""
	if !l.proxies.containsConn(conn) {
		address = addressOf(conn)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if address != "" {
		if l.open[address] >= l.limit {
			return false
		}
		l.open[address]++
	}
	l.admitted[conn] = address
	return true
}

// openCount is how many connections the listener let in are still open.
func (l *connectionLimit) openCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.admitted)
}

// release gives back the place of conn, if the listener let it in.
func (l *connectionLimit) release(conn net.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	address, ok := l.admitted[conn]
	if !ok {
		return
	}
	delete(l.admitted, conn)
	if address == "" {
		return
	}
	if l.open[address]--; l.open[address] <= 0 {
		delete(l.open, address)
	}
}

// connectionStateHook is the server's connection-state hook that gives a
// connection's place back when the server is done with it: closed, or
// taken over (hijacked, which no route does). Connections the listener
// did not let in (served by App().Test, say) are not counted.
func (l *connectionLimit) connectionStateHook(next func(net.Conn, fasthttp.ConnState)) func(net.Conn, fasthttp.ConnState) {
	return func(conn net.Conn, state fasthttp.ConnState) {
		if state == fasthttp.StateClosed || state == fasthttp.StateHijacked {
			l.release(conn)
		}
		if next != nil {
			next(conn, state)
		}
	}
}

// refuse answers a connection past its address's limit and closes it.
func (l *connectionLimit) refuse(conn net.Conn) {
	if l.refused != nil {
		l.refused()
	}
	now := time.Now()
	answer := append(append([]byte(nil), l.refusalHead...), "Date: "...)
	answer = append(now.UTC().AppendFormat(answer, http.TimeFormat), "\r\nX-Request-Id: "...)
	answer = append(l.ids.appendUnseenID(answer), "\r\n\r\n"...)
	answer = append(answer, l.refusalBody...)
	_ = conn.SetWriteDeadline(now.Add(refusalWriteTimeout))
	_, _ = conn.Write(answer)
	_ = conn.Close()
}

// addressOf is the client address of a connection as its bound counts it
// (see boundAddress), without its port.
func addressOf(conn net.Conn) string {
	if tcp, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		if addr, ok := netip.AddrFromSlice(tcp.IP); ok {
			return boundAddress(addr).String()
		}
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(conn.RemoteAddr().String())
	if err != nil {
		return conn.RemoteAddr().String()
	}
	return host
}
