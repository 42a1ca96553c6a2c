package api

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// DefaultMaxConnsPerAddress is how many connections one client address
// may hold open at once when Config.MaxConnsPerAddress is zero.
const DefaultMaxConnsPerAddress = 256

// refusalWriteTimeout bounds the write of the answer to a connection
// refused for its address's limit.
const refusalWriteTimeout = time.Second

// connectionLimit is a listener that lets each client address hold at most
// limit connections open. A connection past the limit is answered the
// contract's 429 and closed at once.
//
// The connections it lets in are fasthttp's own *net.TCPConn, never
// wrapped: fasthttp sends a response larger than its write buffer with one
// writev only on such a connection (a wrapped one costs two writes per
// answer over 4 KiB, measured at about 6 µs of the server's CPU per 15 KiB
// answer). A connection's place is given back by the server's
// connection-state hook (closed), see connectionClosed.
type connectionLimit struct {
	net.Listener
	limit int
	// refusal is the whole HTTP answer written to a refused connection.
	refusal []byte

	mu   sync.Mutex
	open map[string]int
}

// newConnectionLimit wraps ln; body is the JSON error body of the 429.
func newConnectionLimit(ln net.Listener, limit int, body []byte) *connectionLimit {
	refusal := fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nRetry-After: 1\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n%s",
		http.StatusTooManyRequests, http.StatusText(http.StatusTooManyRequests), len(body), body)
	return &connectionLimit{Listener: ln, limit: limit, refusal: refusal, open: make(map[string]int)}
}

// Accept returns the next connection whose address is within its limit.
func (l *connectionLimit) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.admit(addressOf(conn)) {
			return conn, nil
		}
		go l.refuse(conn)
	}
}

func (l *connectionLimit) admit(address string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[address] >= l.limit {
		return false
	}
	l.open[address]++
	return true
}

func (l *connectionLimit) release(address string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[address]--; l.open[address] <= 0 {
		delete(l.open, address)
	}
}

// connectionStateHook is the server's connection-state hook that gives a
// connection's place back when the server is done with it: closed, or
// taken over (hijacked, which no route does). It runs once per
// connection Accept returned.
func (l *connectionLimit) connectionStateHook(next func(net.Conn, fasthttp.ConnState)) func(net.Conn, fasthttp.ConnState) {
	return func(conn net.Conn, state fasthttp.ConnState) {
		if state == fasthttp.StateClosed || state == fasthttp.StateHijacked {
			l.release(addressOf(conn))
		}
		if next != nil {
			next(conn, state)
		}
	}
}

// refuse answers a connection past its address's limit and closes it.
func (l *connectionLimit) refuse(conn net.Conn) {
	_ = conn.SetWriteDeadline(time.Now().Add(refusalWriteTimeout))
	_, _ = conn.Write(l.refusal)
	_ = conn.Close()
}

// addressOf is the client address of a connection, without its port.
func addressOf(conn net.Conn) string {
	if tcp, ok := conn.RemoteAddr().(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(conn.RemoteAddr().String())
	if err != nil {
		return conn.RemoteAddr().String()
	}
	return host
}
