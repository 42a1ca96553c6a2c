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

// maxForwardedHops bounds the addresses of X-Forwarded-For read from the
// right: past them, the peer stands for the client. A chain of proxies is
// short; the bound keeps a header written long by a client cheap.
const maxForwardedHops = 16

// clientAddress is the address of the client of a request: the
// connection's peer, or, when that is a trusted proxy, the last address
// of X-Forwarded-For (all its lines, in order) that is not one, read from
// the right: the addresses left of it are the client's to write. A hop
// may carry a port (192.0.2.1:443, [2001:db8::1]:443), and an IPv6 hop
// may be in brackets without one ([2001:db8::1]). A header that
// names no valid address there, or only proxies within
// maxForwardedHops, leaves the peer.
func (p trustedProxies) clientAddress(c *fiber.Ctx) netip.Addr {
	peer, _ := netip.AddrFromSlice(c.Context().RemoteIP())
	peer = peer.Unmap()
	if len(p) == 0 || !p.contains(peer) {
		return peer
	}
	lines := c.Request().Header.PeekAll(headerForwardedFor)
	hops := 0
	for i := len(lines) - 1; i >= 0; i-- {
		rest := lines[i]
		for len(rest) > 0 {
			if hops++; hops > maxForwardedHops {
				return peer
			}
			cut := bytes.LastIndexByte(rest, ',')
			hop, ok := parseHop(bytes.TrimSpace(rest[cut+1:]))
			if !ok {
				return peer
			}
			if !p.contains(hop) {
				return hop
			}
			rest = rest[:max(cut, 0)]
		}
	}
	return peer
}

// parseHop reads one address of X-Forwarded-For, with or without a port
// (in brackets either way, as an IPv6 address with one is written),
// without its zone (fe80::1%eth0): a prefix never contains an address
// with one.
func parseHop(hop []byte) (netip.Addr, bool) {
	if len(hop) > 2 && hop[0] == '[' && hop[len(hop)-1] == ']' {
		hop = hop[1 : len(hop)-1]
	}
	if addr, err := netip.ParseAddr(string(hop)); err == nil {
		return addr.Unmap().WithZone(""), true
	}
	if addrPort, err := netip.ParseAddrPort(string(hop)); err == nil {
		return addrPort.Addr().Unmap().WithZone(""), true
	}
	return netip.Addr{}, false
}

// boundAddress is what the per-address bounds (connections, key lookups)
// count by for an address: an IPv4 address itself, an IPv6 address's /64,
// which one subscriber is usually given whole, so that rotating through
// it buys no more.
func boundAddress(addr netip.Addr) netip.Addr {
	addr = addr.Unmap()
	if addr.Is4() {
		return addr
	}
	return netip.PrefixFrom(addr.WithZone(""), 64).Masked().Addr()
}
