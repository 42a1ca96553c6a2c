package api_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// acceptEncodingLines are Accept-Encoding headers sent in two lines, which
// are one comma-separated list (RFC 9110 5.3), and whether they accept
// gzip: a later line can name gzip, give "*" its weight, or refuse gzip
// with q=0, which no other mention of it overrides.
var acceptEncodingLines = []struct {
	lines []string
	gzip  bool
}{
	{[]string{"br", "gzip"}, true},
	{[]string{"identity", "*"}, true},
	{[]string{"gzip", "*;q=0"}, true},
	{[]string{"br;q=1", "x-gzip;q=0.5, deflate"}, true},
	{[]string{"br", "gzip;q=0"}, false},
	{[]string{"gzip", "gzip;q=0"}, false},
	{[]string{"*", "gzip;q=0"}, false},
	{[]string{"gzip;q=0", "*"}, false},
	{[]string{"br", "deflate"}, false},
}

// getWithLines sends a GET through the real app's handler, as fasthttp
// reads a request off the wire, with the key and one Accept-Encoding
// header line per element of lines.
func (h *harness) getWithLines(path, key string, lines []string) *fasthttp.Response {
	h.t.Helper()
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI(path)
	ctx.Request.Header.Set("auth", key)
	for _, line := range lines {
		ctx.Request.Header.Add(fasthttp.HeaderAcceptEncoding, line)
	}
	h.server.App().Handler()(&ctx)
	var resp fasthttp.Response
	ctx.Response.CopyTo(&resp)
	return &resp
}

// checkEncodedAnswer fails t unless resp is a 200 of plain's bytes,
// gzipped with the weak ETag when gzip is true, else plain with the
// strong one.
func checkEncodedAnswer(t *testing.T, resp *fasthttp.Response, lines []string, gzip bool, plain []byte, etag string) {
	t.Helper()
	encoding := string(resp.Header.ContentEncoding())
	if resp.StatusCode() != http.StatusOK || (encoding == "gzip") != gzip {
		t.Errorf("Accept-Encoding lines %q: status %d, Content-Encoding %q, want 200 gzipped %v", lines, resp.StatusCode(), encoding, gzip)
		return
	}
	body, wantETag := resp.Body(), etag
	if gzip {
		var err error
		if body, err = resp.BodyGunzip(); err != nil {
			t.Errorf("Accept-Encoding lines %q: %v", lines, err)
			return
		}
		wantETag = "W/" + etag
	}
	if !bytes.Equal(body, plain) {
		t.Errorf("Accept-Encoding lines %q: the body differs from the plain answer", lines)
	}
	if got := string(resp.Header.Peek("ETag")); got != wantETag {
		t.Errorf("Accept-Encoding lines %q: ETag %s, want %s", lines, got, wantETag)
	}
}

// A cached answer is sent gzipped as all the Accept-Encoding lines
// together say, not the first alone.
func TestCachedAnswerAcceptEncodingOverSeveralHeaderLines(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("26")
	path := "/player/" + h.world.PlayerTags()[1] + "/battles"
	first := h.get(path, "auth", key)
	plain, etag := readBody(t, first), first.Header.Get("ETag")
	for _, tt := range acceptEncodingLines {
		resp := h.getWithLines(path, key, tt.lines)
		if cached := string(resp.Header.Peek("x-cached")); cached != "true" {
			t.Fatalf("Accept-Encoding lines %q: x-cached %q, want the cached answer", tt.lines, cached)
		}
		checkEncodedAnswer(t, resp, tt.lines, tt.gzip, plain, etag)
	}
}

// An answer shaped by the legacy parameters is compressed and sent as all
// the Accept-Encoding lines together say.
func TestShapedAnswerAcceptEncodingOverSeveralHeaderLines(t *testing.T) {
	f := newShapingFixture(t)
	path := "/player/" + f.player + "/battles?exclude=opponent&max=20"
	first := f.h.get(path, "auth", f.key)
	plain, etag := readBody(t, first), first.Header.Get("ETag")
	if strings.HasPrefix(etag, "W/") || len(plain) < 1024 {
		t.Fatalf("the shaped answer: ETag %s, %d bytes; want a strong ETag and a body gzip is worth it for", etag, len(plain))
	}
	for _, tt := range acceptEncodingLines {
		checkEncodedAnswer(t, f.h.getWithLines(path, f.key, tt.lines), tt.lines, tt.gzip, plain, etag)
	}
}
