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
	limit := newConnectionLimit(1, nil, []byte(`{}`))
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
