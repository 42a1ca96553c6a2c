package api

import (
	"net"
	"net/netip"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// TestClientAddressBehindProxies reads X-Forwarded-For as a trusted proxy
// sends it: from the right, ports allowed, a bounded number of hops.
func TestClientAddressBehindProxies(t *testing.T) {
	app := fiber.New()
	proxies := trustedProxies{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fe80::/10")}
	manyProxies := strings.Repeat("10.0.0.7, ", maxForwardedHops)
	tests := []struct {
		name, peer, forwardedFor, want string
	}{
		{"no header", "10.0.0.1", "", "10.0.0.1"},
		{"one client", "10.0.0.1", "203.0.113.9", "203.0.113.9"},
		{"a client's own additions", "10.0.0.1", "198.51.100.1, 203.0.113.9", "203.0.113.9"},
		{"two proxies", "10.0.0.1", "203.0.113.9, 10.0.0.2", "203.0.113.9"},
		{"with a port", "10.0.0.1", "203.0.113.9:443", "203.0.113.9"},
		{"IPv6 with a port", "10.0.0.1", "[2001:db8::1]:443", "2001:db8::1"},
		{"IPv6 in brackets without a port", "10.0.0.1", "[2001:db8::1], [fe80::2]", "2001:db8::1"},
		{"empty brackets", "10.0.0.1", "203.0.113.9, []", "10.0.0.1"},
		{"a link-local proxy with its zone", "10.0.0.1", "203.0.113.9, fe80::1%eth0, [fe80::2%eth0]:80", "203.0.113.9"},
		{"IPv4 written mapped", "10.0.0.1", "::ffff:203.0.113.9", "203.0.113.9"},
		{"a peer written mapped", "::ffff:10.0.0.1", "203.0.113.9", "203.0.113.9"},
		{"not an address", "10.0.0.1", "203.0.113.9, unknown", "10.0.0.1"},
		{"a long client part, read from the right only", "10.0.0.1", strings.Repeat(",", 8000) + " 203.0.113.9", "203.0.113.9"},
		{"more proxies than are read", "10.0.0.1", "203.0.113.9, " + manyProxies + "10.0.0.8", "10.0.0.1"},
		{"an untrusted peer", "192.0.2.1", "203.0.113.9", "192.0.2.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var request fasthttp.RequestCtx
			request.SetRemoteAddr(&net.TCPAddr{IP: net.ParseIP(tt.peer), Port: 1234})
			if tt.forwardedFor != "" {
				request.Request.Header.Set(headerForwardedFor, tt.forwardedFor)
			}
			c := app.AcquireCtx(&request)
			defer app.ReleaseCtx(c)
			if got := proxies.clientAddress(c); got != netip.MustParseAddr(tt.want) {
				t.Fatalf("client address %v, want %s", got, tt.want)
			}
		})
	}
}
