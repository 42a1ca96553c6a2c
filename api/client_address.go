package api

import (
	"bytes"
	"net"
	"net/netip"

	"github.com/gofiber/fiber/v2"
)

// headerForwardedFor lists the addresses a request came through, the
// client's first, each proxy appending the address it heard from.
const headerForwardedFor = "X-Forwarded-For"

// trustedProxies are the addresses of the proxies in front of the API
// (Config.TrustedProxies). A connection from one carries the requests of
// many clients: it holds no place in the per-address connection limit,
// and the client address of its requests (for the per-address key-lookup
// budget) is the one its X-Forwarded-For names.
type trustedProxies []netip.Prefix

// contains tells whether addr is the address of a trusted proxy.
func (p trustedProxies) contains(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, prefix := range p {
		if prefix.Contains(addr) {
			return true
		}
	}
	return false
}

// containsConn tells whether conn comes from a trusted proxy.
func (p trustedProxies) containsConn(conn net.Conn) bool {
	if len(p) == 0 {
		return false
	}
	tcp, ok := conn.RemoteAddr().(*net.TCPAddr)
	if !ok {
		return false
	}
	addr, ok := netip.AddrFromSlice(tcp.IP)
	return ok && p.contains(addr)
}

// clientAddress is the address of the client of a request: the
// connection's peer, or, when that is a trusted proxy, the last address
// of X-Forwarded-For (all its lines, in order) that is not one, read from
// the right: the addresses left of it are the client's to write. A header
// that names no valid address leaves the peer.
func (p trustedProxies) clientAddress(c *fiber.Ctx) []byte {
	peer := c.Context().RemoteIP()
	addr, ok := netip.AddrFromSlice(peer)
	if len(p) == 0 || !ok || !p.contains(addr) {
		return peer
	}
	lines := c.Request().Header.PeekAll(headerForwardedFor)
	for i := len(lines) - 1; i >= 0; i-- {
		hops := bytes.Split(lines[i], []byte{','})
		for j := len(hops) - 1; j >= 0; j-- {
			hop, err := netip.ParseAddr(string(bytes.TrimSpace(hops[j])))
			if err != nil {
				return peer
			}
			if !p.contains(hop) {
				return hop.Unmap().AsSlice()
			}
		}
	}
	return peer
}
