package api

import (
	"net"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestOnlyConnectionsLetInGiveTheirPlaceBack: the server's hook sees every
// connection it closes, those of App().Test too; only the ones the
// listener let in free a place.
func TestOnlyConnectionsLetInGiveTheirPlaceBack(t *testing.T) {
	limit := newConnectionLimit(1, nil, []byte(`{}`), newRequestIDs())
	hook := limit.connectionStateHook(nil)
	first, firstPeer := net.Pipe()
	second, secondPeer := net.Pipe()
	for _, c := range []net.Conn{first, firstPeer, second, secondPeer} {
		defer c.Close()
	}
	if !limit.admit(first) {
		t.Fatal("the first connection of an address was refused")
	}
	if limit.admit(second) {
		t.Fatal("a connection past the limit was let in")
	}
	hook(second, fasthttp.StateClosed)
	if limit.admit(second) {
		t.Fatal("a connection never let in gave a place back when closed")
	}
	hook(first, fasthttp.StateIdle)
	if limit.admit(second) {
		t.Fatal("an idle connection gave its place back")
	}
	hook(first, fasthttp.StateClosed)
	hook(first, fasthttp.StateClosed)
	if !limit.admit(second) {
		t.Fatal("a closed connection's place was not given back")
	}
	if limit.admit(first) {
		t.Fatal("a connection closed twice gave its place back twice")
	}
}

// connFrom is a connection from address, for the limit's bookkeeping.
type connFrom struct {
	net.Conn
	address string
}

func (c connFrom) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.ParseIP(c.address), Port: 40000}
}

// TestIPv6ConnectionsAreCountedByTheirSlash64: the addresses of one /64
// share one limit; another /64 has its own; IPv4 addresses, written
// mapped or not, are one address each.
func TestIPv6ConnectionsAreCountedByTheirSlash64(t *testing.T) {
	limit := newConnectionLimit(1, nil, []byte(`{}`), newRequestIDs())
	for _, tc := range []struct {
		address  string
		admitted bool
	}{
		{"2001:db8:0:1::1", true},
		{"2001:db8:0:1:ffff::2", false},
		{"2001:db8:0:2::1", true},
		{"192.0.2.1", true},
		{"::ffff:192.0.2.1", false},
		{"192.0.2.2", true},
	} {
		if got := limit.admit(connFrom{address: tc.address}); got != tc.admitted {
			t.Errorf("a connection from %s: let in %v, want %v", tc.address, got, tc.admitted)
		}
	}
}
