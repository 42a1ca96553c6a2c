// Package faultproxy is a small TCP proxy for tests that puts faults
// between a client and a real server (PostgreSQL): it can cut every open
// connection, refuse new ones, stall the bytes in flight, silence the
// open connections, and cut a connection between a commit and its answer. It exists
// so that tests of the database's failures use the real driver against
// the real database, with nothing mocked.
package faultproxy

import (
	"bytes"
	"context"
	"net"
	"sync"
	"sync/atomic"
)

// Proxy forwards the connections it accepts on Addr to a target address.
type Proxy struct {
	target string
	ln     net.Listener

	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	refusing bool
	stalled  bool
	// resume is closed when a stall ends.
	resume chan struct{}
	closed bool
	// cutAfterCommit is set by CutAfterCommit until a connection commits.
	cutAfterCommit bool
	// opened numbers the connections accepted; those numbered below
	// silencedBelow are silenced (see Silence).
	opened, silencedBelow atomic.Int64
}

// Start listens on a free loopback port and forwards to target.
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: target, ln: ln, conns: make(map[net.Conn]struct{})}
	go p.accept()
	return p, nil
}

// Target is the host:port the proxy forwards to.
func (p *Proxy) Target() string { return p.target }

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refusing, closed := p.refusing, p.closed
		p.mu.Unlock()
		if refusing || closed {
			// Reset rather than close politely: what a client of a server
			// that is not there sees.
			if tcp, ok := client.(*net.TCPConn); ok {
				_ = tcp.SetLinger(0)
			}
			_ = client.Close()
			continue
		}
		go p.forward(client)
	}
}

func (p *Proxy) forward(client net.Conn) {
	var dialer net.Dialer
	server, err := dialer.DialContext(context.Background(), "tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	if !p.track(client, server) {
		_ = client.Close()
		_ = server.Close()
		return
	}
	number := p.opened.Add(1)
	silenced := func() bool { return number <= p.silencedBelow.Load() }
	// committed is set when the client sent the COMMIT CutAfterCommit
	// waits for: the server's next bytes are its answer, and are not sent.
	var committed atomic.Bool
	toServer := func(chunk []byte) (send, goOn bool) {
		if silenced() {
			return false, true
		}
		if p.takeCommit(chunk) {
			committed.Store(true)
		}
		return true, true
	}
	toClient := func([]byte) (send, goOn bool) {
		if committed.Load() {
			return false, false
		}
		return !silenced(), true
	}
	done := make(chan struct{}, 2)
	go func() { p.copy(server, client, toServer); done <- struct{}{} }()
	go func() { p.copy(client, server, toClient); done <- struct{}{} }()
	<-done
	p.drop(client, server)
}

// copy moves bytes from src to dst, holding each chunk while stalled,
// and asks pass of each chunk whether to send it and whether to go on:
// a chunk not sent is dropped, and copy returns when pass says stop.
func (p *Proxy) copy(dst, src net.Conn, pass func([]byte) (send, goOn bool)) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.waitWhileStalled()
			send, goOn := pass(buf[:n])
			if !goOn {
				return
			}
			if !send {
				continue
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// commitQuery is the PostgreSQL protocol's simple query message "commit"
// (type Q, length 11, the text and its terminating zero), which pgx sends
// to commit a transaction.
var commitQuery = []byte("Q\x00\x00\x00\x0bcommit\x00")

// takeCommit tells whether chunk, sent by a client to the server, is a
// COMMIT the proxy was armed for by CutAfterCommit, and disarms it.
func (p *Proxy) takeCommit(chunk []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.cutAfterCommit || !bytes.Contains(bytes.ToLower(chunk), bytes.ToLower(commitQuery)) {
		return false
	}
	p.cutAfterCommit = false
	return true
}

// CutAfterCommit cuts the next connection that commits a transaction
// between the commit and its answer: the COMMIT reaches the server, the
// server's answer (sent once the transaction is committed) is not
// forwarded, and the connection is closed both ways. The client cannot
// tell whether its transaction was committed; it was. Only one
// connection is cut; call it again to cut another.
func (p *Proxy) CutAfterCommit() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cutAfterCommit = true
}

func (p *Proxy) waitWhileStalled() {
	p.mu.Lock()
	stalled, resume := p.stalled, p.resume
	p.mu.Unlock()
	if stalled {
		<-resume
	}
}

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.refusing {
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) drop(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// CutAll closes every open connection, both ways, as a database that
// goes away does: an idle pooled connection learns of it only when its
// next query reads the end of the stream. New connections are accepted.
func (p *Proxy) CutAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// Refuse cuts every open connection and resets new ones until Accept.
func (p *Proxy) Refuse() {
	p.mu.Lock()
	p.refusing = true
	p.mu.Unlock()
	p.CutAll()
}

// Accept takes new connections again after Refuse.
func (p *Proxy) Accept() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refusing = false
}

// Stall holds every byte in flight, both ways, until Resume: the
// connections stay open, nothing arrives.
func (p *Proxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.stalled {
		p.stalled, p.resume = true, make(chan struct{})
	}
}

// Silence drops, from now on, every byte of the connections open now,
// both ways, and keeps them open: what a client sees of a server whose
// network path died without a reset (a failover, a firewall or NAT that
// forgot the connection). Connections opened afterwards are forwarded as
// ever. Unlike Stall, nothing dropped arrives later.
func (p *Proxy) Silence() {
	p.silencedBelow.Store(p.opened.Load())
}

// Resume lets the bytes held by Stall through.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stalled {
		p.stalled = false
		close(p.resume)
	}
}

// Close stops listening and cuts every connection.
func (p *Proxy) Close() error {
	p.Resume()
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.CutAll()
	return p.ln.Close()
}
