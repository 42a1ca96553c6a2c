package api

import (
	"bytes"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// FuzzClientAddress reads X-Forwarded-For lines a trusted proxy passes
// on: the client address is the peer or an address the lines name
// outside the trusted proxies, and one that parseHop reads back as itself.
func FuzzClientAddress(f *testing.F) {
	for _, seed := range [][2]string{
		{"203.0.113.9", ""},
		{"198.51.100.1, 203.0.113.9", "10.0.0.2"},
		{"[2001:db8::1]:443, fe80::1%eth0", "[fe80::2%eth0]:80"},
		{"::ffff:203.0.113.9", "unknown"},
		{strings.Repeat("10.0.0.7, ", 20), "10.0.0.8"},
		{"[]", ",,, ,"},
		{"[203.0.113.9]", "203.0.113.9:0"},
	} {
		f.Add(seed[0], seed[1])
	}
	app := fiber.New()
	proxies := trustedProxies{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fe80::/10")}
	peer := netip.MustParseAddr("10.0.0.1")
	f.Fuzz(func(t *testing.T, first, second string) {
		var request fasthttp.RequestCtx
		request.SetRemoteAddr(&net.TCPAddr{IP: peer.AsSlice(), Port: 1234})
		request.Request.Header.Add(headerForwardedFor, first)
		request.Request.Header.Add(headerForwardedFor, second)
		c := app.AcquireCtx(&request)
		defer app.ReleaseCtx(c)
		got := proxies.clientAddress(c)
		if got == peer {
			return
		}
		if proxies.contains(got) || got.Zone() != "" || got.Is4In6() {
			t.Fatalf("X-Forwarded-For %q, %q: client address %v is a proxy's, zoned or mapped", first, second, got)
		}
		if again, ok := parseHop([]byte(got.String())); !ok || again != got {
			t.Fatalf("X-Forwarded-For %q, %q: client address %v reads back as %v, %v", first, second, got, again, ok)
		}
		named := false
		for _, line := range request.Request.Header.PeekAll(headerForwardedFor) {
			for hop := range bytes.SplitSeq(line, []byte(",")) {
				if addr, ok := parseHop(bytes.TrimSpace(hop)); ok && addr == got {
					named = true
				}
			}
		}
		if !named {
			t.Fatalf("X-Forwarded-For %q, %q: client address %v is named by no hop", first, second, got)
		}
	})
}

// FuzzETagMatches checks If-None-Match against a list of entity tags: a
// list naming the answer's tag (strong or weak, anywhere in it) matches,
// "*" matches, and a list of tags of other bodies does not.
func FuzzETagMatches(f *testing.F) {
	f.Add(`"3-abc"`, "body", uint8(0))
	f.Add(`W/"3-abc", "x"`, `{"a":1}`, uint8(1))
	f.Add(`*`, "", uint8(2))
	f.Add(` , ,W/ "x" ,`, "[]", uint8(3))
	f.Fuzz(func(t *testing.T, others, body string, place uint8) {
		etag := etagOf([]byte(body))
		list := strings.Split(others, ",")
		// The others, with anything that could name our tag or any tag
		// taken out.
		foreign := list[:0]
		for _, candidate := range list {
			candidate = strings.TrimSpace(candidate)
			if candidate != "*" && strings.TrimPrefix(candidate, "W/") != etag {
				foreign = append(foreign, candidate)
			}
		}
		if header := strings.Join(foreign, ", "); etagMatches(header, etag) {
			t.Fatalf("If-None-Match %q matches %s", header, etag)
		}
		named := []string{etag, string(weakETagOf(etag))}[place%2]
		at := int(place) % (len(foreign) + 1)
		withOurs := append(append(append([]string{}, foreign[:at]...), " "+named+" "), foreign[at:]...)
		if header := strings.Join(withOurs, ","); !etagMatches(header, etag) {
			t.Fatalf("If-None-Match %q does not match %s", header, etag)
		}
	})
}

// FuzzAcceptsGzip compares acceptsGzip with RFC 9110's reading of a
// well-formed Accept-Encoding sent in two header lines, which are one
// list (RFC 9110 5.3): codings with optional weights, gzip (or x-gzip)
// acceptable when named and no mention of it weighs 0, or, when not
// named, when "*" is named and no mention of it weighs 0.
func FuzzAcceptsGzip(f *testing.F) {
	for _, seed := range [][2]string{
		{"gzip", ""}, {"gzip, deflate, br", ""}, {"br;q=1.0, gzip;q=0.8, *;q=0.1", ""}, {"gzip;q=0", ""},
		{"GZIP; Q=0.000", ""}, {"x-gzip", ""}, {"identity", ""}, {"*", ""}, {"*;q=0", ""}, {"br, *;q=0.5", ""},
		{"gzip;q=0, *", ""}, {"deflate;q=0.5, gzip;q=0.001", ""}, {"", ""}, {"gzip, gzip;q=0", ""},
		{"br", "gzip"}, {"gzip", "*;q=0"}, {"gzip", "gzip;q=0"}, {"br", "gzip;q=0"}, {"*", "x-gzip;q=0"},
		{"*;q=0", "*"}, {"identity", "*;q=0.1"}, {"", "gzip"},
	} {
		f.Add(seed[0], seed[1])
	}
	app := fiber.New()
	f.Fuzz(func(t *testing.T, first, second string) {
		var request fasthttp.RequestCtx
		request.Request.Header.Add(fiber.HeaderAcceptEncoding, first)
		request.Request.Header.Add(fiber.HeaderAcceptEncoding, second)
		c := app.AcquireCtx(&request)
		defer app.ReleaseCtx(c)
		got := acceptsGzip(c)
		want, wellFormed := referenceAcceptsGzip(first + "," + second)
		if wellFormed && got != want {
			t.Fatalf("acceptsGzip of lines %q, %q = %v, want %v", first, second, got, want)
		}
	})
}

// referenceAcceptsGzip reads a well-formed Accept-Encoding (wellFormed
// false for anything else).
func referenceAcceptsGzip(header string) (accepts, wellFormed bool) {
	var gzipWeights, wildcardWeights []float64
	for part := range strings.SplitSeq(header, ",") {
		coding, weight, hasWeight := strings.Cut(strings.Trim(part, " \t"), ";")
		coding = strings.ToLower(strings.Trim(coding, " \t"))
		if coding == "" && !hasWeight {
			continue // an empty list element
		}
		if coding == "" || strings.Trim(coding, "abcdefghijklmnopqrstuvwxyz0123456789-*") != "" {
			return false, false
		}
		q := 1.0
		if hasWeight {
			var ok bool
			if q, ok = qvalue(strings.Trim(weight, " \t")); !ok {
				return false, false
			}
		}
		switch coding {
		case "gzip", "x-gzip":
			gzipWeights = append(gzipWeights, q)
		case "*":
			wildcardWeights = append(wildcardWeights, q)
		}
	}
	if gzipWeights != nil {
		return !slices.Contains(gzipWeights, 0), true
	}
	return wildcardWeights != nil && !slices.Contains(wildcardWeights, 0), true
}

// qvalue reads a weight, "q=" and a qvalue of RFC 9110 12.4.2.
func qvalue(weight string) (float64, bool) {
	value, ok := strings.CutPrefix(strings.ToLower(weight), "q=")
	if !ok || value == "" || len(value) > 5 || (value[0] != '0' && value[0] != '1') {
		return 0, false
	}
	if len(value) > 1 && (value[1] != '.' || strings.Trim(value[2:], "0123456789") != "") {
		return 0, false
	}
	q, err := strconv.ParseFloat(value, 64)
	if err != nil || q > 1 {
		return 0, false
	}
	return q, true
}
