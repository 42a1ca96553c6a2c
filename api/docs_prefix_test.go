package api_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"testing"
)

// underPrefix serves base (a server's URL) under the path prefix, as a
// reverse proxy that strips it would, and returns the proxy's URL.
func underPrefix(t *testing.T, base, prefix string) string {
	t.Helper()
	target, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httptest.NewServer(http.StripPrefix(prefix, httputil.NewSingleHostReverseProxy(target)))
	t.Cleanup(proxy.Close)
	return proxy.URL
}

// docsLinks finds what the page loads: the document and the script.
var docsLinks = regexp.MustCompile(`(?:spec-url|src)="([^"]+)"`)

// TestDocsPageWorksUnderAPathPrefix: the page names the document and its
// script relative to itself, so that served as /docs or /docs/, directly
// or by a proxy under a path prefix, both resolve to the right files.
func TestDocsPageWorksUnderAPathPrefix(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	base := serveOnLoopback(t, h.server)
	proxied := underPrefix(t, base, "/crowns")
	for _, page := range []string{base + "/docs", base + "/docs/", proxied + "/crowns/docs", proxied + "/crowns/docs/"} {
		pageURL, err := url.Parse(page)
		if err != nil {
			t.Fatal(err)
		}
		html := fetchOK(t, page, "text/html; charset=utf-8")
		links := docsLinks.FindAllSubmatch(html, -1)
		if len(links) != 2 {
			t.Fatalf("%s: links %q, want the document and the script", page, links)
		}
		for i, want := range []string{"application/json", "text/javascript; charset=utf-8"} {
			ref, err := url.Parse(string(links[i][1]))
			if err != nil {
				t.Fatal(err)
			}
			fetchOK(t, pageURL.ResolveReference(ref).String(), want)
		}
	}
}

// fetchOK gets target and fails the test unless it answers 200 with the
// content type.
func fetchOK(t *testing.T, target, contentType string) []byte {
	t.Helper()
	resp, err := http.Get(target)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != contentType {
		t.Fatalf("%s: %d %s, want 200 %s", target, resp.StatusCode, resp.Header.Get("Content-Type"), contentType)
	}
	return body
}
