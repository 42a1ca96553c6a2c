package api

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
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
		address := addressOf(conn)
		if l.admit(address) {
			return &limitedConn{Conn: conn, release: func() { l.release(address) }}, nil
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

// limitedConn gives its place back once, when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
