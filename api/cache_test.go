package api_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
)

func TestUpstreamAnswersAreCached(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("20")
	player := h.world.PlayerTags()[0]
	path := "/player/" + player + "/battles"
	upstreamPath := "/v1/players/%23" + player + "/battlelog"

	first := h.get(path, "auth", key)
	firstBody := readBody(t, first)
	if first.StatusCode != http.StatusOK || first.Header.Get("x-cached") != "" {
		t.Fatalf("first answer: status %d, x-cached %q", first.StatusCode, first.Header.Get("x-cached"))
	}
	second := h.get(path, "auth", key)
	expectHeader(t, second, "x-cached", "true")
	if !bytes.Equal(readBody(t, second), firstBody) {
		t.Fatal("the cached answer differs from the first")
	}
	if n := h.upstream.count(upstreamPath); n != 1 {
		t.Fatalf("upstream called %d times for two requests within the TTL", n)
	}
	// A tag written another way is the same entry.
	if resp := h.get("/player/%23"+player+"/battles", "auth", key); resp.Header.Get("x-cached") != "true" {
		t.Fatal("the %23-prefixed tag missed the cache")
	}

	h.clock.Advance(3*time.Minute + time.Second)
	third := h.get(path, "auth", key)
	if third.StatusCode != http.StatusOK || third.Header.Get("x-cached") != "" {
		t.Fatalf("after the TTL: status %d, x-cached %q", third.StatusCode, third.Header.Get("x-cached"))
	}
	if n := h.upstream.count(upstreamPath); n != 2 {
		t.Fatalf("upstream called %d times, want 2 after expiry", n)
	}
}

func TestETagAndConditionalGet(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("22")
	resp := h.get("/clan/search?name=royal&limit=5", "auth", key)
	body := readBody(t, resp)
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != http.StatusOK || etag == "" {
		t.Fatalf("status %d, ETag %q", resp.StatusCode, etag)
	}
	for _, ifNoneMatch := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
		notModified := h.get("/clan/search?name=royal&limit=5", "auth", key, "If-None-Match", ifNoneMatch)
		if notModified.StatusCode != http.StatusNotModified {
			t.Fatalf("If-None-Match %s: status %d", ifNoneMatch, notModified.StatusCode)
		}
		if b := readBody(t, notModified); len(b) != 0 {
			t.Fatalf("304 with a body of %d bytes", len(b))
		}
		expectHeader(t, notModified, "ETag", etag)
	}
	other := h.get("/clan/search?name=royal&limit=5", "auth", key, "If-None-Match", `"stale"`)
	if other.StatusCode != http.StatusOK || !bytes.Equal(readBody(t, other), body) {
		t.Fatalf("non-matching If-None-Match: status %d", other.StatusCode)
	}
	if h.get("/healthz").Header.Get("ETag") == "" {
		t.Fatal("a 200 without ETag")
	}
}

// Several If-None-Match header lines are one list (RFC 9110 5.3), as a
// proxy that splits or a client that adds tags one line each sends them.
func TestIfNoneMatchOverSeveralHeaderLines(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("24")
	const path = "/clan/search?name=royal&limit=5"
	etag := h.get(path, "auth", key).Header.Get("ETag")
	for _, lines := range [][]string{{`"other"`, etag}, {`"a", "b"`, "W/" + etag}, {`"other"`, "*"}} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("auth", key)
		for _, line := range lines {
			req.Header.Add("If-None-Match", line)
		}
		resp, err := h.server.App().Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("If-None-Match lines %q: status %d, want 304", lines, resp.StatusCode)
		}
	}
}

func TestGzipForClientsThatAcceptIt(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("23")
	path := "/player/" + h.world.PlayerTags()[1] + "/battles"
	plain := readBody(t, h.get(path, "auth", key))

	resp := h.get(path, "auth", key, "Accept-Encoding", "br;q=1, gzip;q=0.8")
	if !bytes.Equal(gunzipBody(t, resp), plain) {
		t.Fatal("the gzip body does not decompress to the plain body")
	}
	// RFC 9110 12.5.3: x-gzip is gzip's old name, and "*" gives its
	// quality to every coding the header does not name.
	for _, c := range []struct {
		acceptEncoding string
		gzip           bool
	}{
		{"gzip", true},
		{"GZIP ; q=0.5", true},
		{"x-gzip", true},
		{"*", true},
		{"br, *;q=0.1", true},
		{"gzip;q=0", false},
		{"x-gzip;q=0, br", false},
		{"gzip;q=0, *", false},
		{"gzip, gzip;q=0", false},
		{"*;q=0", false},
		{"br, deflate", false},
		{"identity", false},
	} {
		resp := h.get(path, "auth", key, "Accept-Encoding", c.acceptEncoding)
		if got := resp.Header.Get("Content-Encoding") == "gzip"; got != c.gzip {
			t.Errorf("Accept-Encoding %q: gzipped %v, want %v", c.acceptEncoding, got, c.gzip)
			continue
		}
		if c.gzip {
			if !bytes.Equal(gunzipBody(t, resp), plain) {
				t.Errorf("Accept-Encoding %q: the gzip body does not decompress to the plain body", c.acceptEncoding)
			}
		} else if !bytes.Equal(readBody(t, resp), plain) {
			t.Errorf("Accept-Encoding %q: a client that refused gzip got another body", c.acceptEncoding)
		}
	}
}

// TestGzippedAnswersHaveAWeakETag: the gzipped and the plain form of an
// answer are different bytes, so they may not share one strong ETag (RFC
// 9110 8.8.1): the plain form's is strong, the gzipped form's the same
// marked weak. If-None-Match compares weakly, so either tag answers 304
// to a client of either form, the 304 carrying the ETag its 200 would.
func TestGzippedAnswersHaveAWeakETag(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("25")
	path := "/player/" + h.world.PlayerTags()[1] + "/battles"
	plain := h.get(path, "auth", key)
	_ = readBody(t, plain)
	gzipped := h.get(path, "auth", key, "Accept-Encoding", "gzip")
	_ = readBody(t, gzipped)
	if gzipped.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", gzipped.Header.Get("Content-Encoding"))
	}
	strong, weak := plain.Header.Get("ETag"), gzipped.Header.Get("ETag")
	if strings.HasPrefix(strong, "W/") || weak != "W/"+strong {
		t.Fatalf("ETag of the plain form %q, of the gzipped form %q: want a strong one and the same marked weak", strong, weak)
	}
	for _, tag := range []string{strong, weak} {
		for _, encoding := range []string{"", "gzip"} {
			resp := h.get(path, "auth", key, "If-None-Match", tag, "Accept-Encoding", encoding)
			_ = readBody(t, resp)
			if resp.StatusCode != http.StatusNotModified {
				t.Fatalf("If-None-Match %s, Accept-Encoding %q: status %d, want 304", tag, encoding, resp.StatusCode)
			}
			want := strong
			if encoding == "gzip" {
				want = weak
			}
			expectHeader(t, resp, "ETag", want)
		}
	}
}

func TestIdentityClientsGetTheSameAnswerBeforeAndAfterGzipClients(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("24")
	path := "/player/" + h.world.PlayerTags()[2] + "/battles"
	want := gunzipBody(t, h.get(path, "auth", key, "Accept-Encoding", "gzip"))
	// The first identity client is served the inflated answer, the next
	// ones the plain form cached beside the compressed one; gzip clients
	// still get the compressed form.
	for i := range 3 {
		resp := h.get(path, "auth", key)
		if resp.Header.Get("Content-Encoding") != "" {
			t.Fatalf("request %d: Content-Encoding %q for a client without gzip", i, resp.Header.Get("Content-Encoding"))
		}
		expectHeader(t, resp, "x-cached", "true")
		if got := readBody(t, resp); !bytes.Equal(got, want) {
			t.Fatalf("request %d: the plain body differs from the inflated gzip body", i)
		}
	}
	again := h.get(path, "auth", key, "Accept-Encoding", "gzip")
	expectHeader(t, again, "Content-Encoding", "gzip")
}

// TestIdentityClientsGetTheWholeAnswerWhenItsPlainFormIsNotKept: with a
// budget that holds the compressed battles answer but not its plain form,
// each identity client is served the answer inflated, whole, every time.
func TestIdentityClientsGetTheWholeAnswerWhenItsPlainFormIsNotKept(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) { c.CacheBytes = 64 << 10 }})
	key := h.issue("24")
	path := "/player/" + h.world.PlayerTags()[2] + "/battles"
	want := gunzipBody(t, h.get(path, "auth", key, "Accept-Encoding", "gzip"))
	if len(want) <= 64<<10 {
		t.Fatalf("the plain answer is %d bytes: it would fit the budget", len(want))
	}
	for i := range 3 {
		resp := h.get(path, "auth", key)
		expectHeader(t, resp, "x-cached", "true")
		if resp.Header.Get("Content-Encoding") != "" || resp.ContentLength != int64(len(want)) {
			t.Fatalf("request %d: Content-Encoding %q, Content-Length %d, want none and %d", i, resp.Header.Get("Content-Encoding"), resp.ContentLength, len(want))
		}
		if got := readBody(t, resp); !bytes.Equal(got, want) {
			t.Fatalf("request %d: the plain body differs from the inflated gzip body", i)
		}
	}
}

func TestCacheCanBeSwitchedOff(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) { c.CacheTTL = 0 }})
	key := h.issue("24")
	h.get("/clan/search?name=royal", "auth", key)
	if resp := h.get("/clan/search?name=royal", "auth", key); resp.Header.Get("x-cached") != "" {
		t.Fatal("cached although the TTL is zero")
	}
	if n := h.upstream.total.Load(); n != 2 {
		t.Fatalf("upstream called %d times, want 2", n)
	}
}

// gunzipBody checks that resp is gzip-encoded and returns its body
// decompressed.
func gunzipBody(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	expectHeader(t, resp, "Content-Encoding", "gzip")
	zr, err := gzip.NewReader(bytes.NewReader(readBody(t, resp)))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return body
}
