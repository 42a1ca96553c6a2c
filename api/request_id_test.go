package api_test

import (
	"strings"
	"testing"
)

func TestRequestIDs(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	seen := map[string]bool{}
	var prefix string
	for range 50 {
		id := h.get("/healthz").Header.Get("X-Request-Id")
		head, _, ok := strings.Cut(id, "-")
		if !ok || id == "" || seen[id] {
			t.Fatalf("request id %q: empty, malformed or repeated", id)
		}
		if prefix == "" {
			prefix = head
		} else if head != prefix {
			t.Fatalf("request ids %q and %q of one server have different prefixes", prefix, id)
		}
		seen[id] = true
	}
	if got := h.get("/healthz", "X-Request-Id", "caller.id-42").Header.Get("X-Request-Id"); got != "caller.id-42" {
		t.Fatalf("a plain caller id came back as %q", got)
	}
	if got := h.get("/healthz", "X-Request-Id", "bad id\x01").Header.Get("X-Request-Id"); !strings.HasPrefix(got, prefix+"-") {
		t.Fatalf("an unsafe caller id was replaced by %q, want one of ours", got)
	}
	if !h.logs.contains("requestId=caller.id-42") {
		t.Fatal("the access log does not carry the caller's request id")
	}
}
