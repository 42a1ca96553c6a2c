package api_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/keys"
)

// serveOn serves h's API on a fresh loopback listener until the test ends
// and returns its address.
func serveOn(t *testing.T, h *harness) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = h.server.Serve(ln) }()
	t.Cleanup(func() { _ = h.server.App().Shutdown() })
	return ln.Addr().String()
}

// rawExchange sends one request written by hand over conn and reads the
// answer (without a body after a HEAD).
func rawExchange(t *testing.T, conn net.Conn, reader *bufio.Reader, request string) *http.Response {
	t.Helper()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte(request)); err != nil {
		t.Fatal(err)
	}
	method, _, _ := strings.Cut(request, " ")
	resp, err := http.ReadResponse(reader, &http.Request{Method: method})
	if err != nil {
		t.Fatalf("read the answer to %q: %v", request, err)
	}
	return resp
}

// TestEveryMethodNameIsAnsweredByTheContract: whatever the method name —
// standard, unknown to HTTP, lower case — every route but GET and HEAD
// answers the contract's JSON 405 with Allow: GET, HEAD, over a real
// connection to the real server (where the framework would answer
// unknown names itself), and the access log names the method sent.
func TestEveryMethodNameIsAnsweredByTheContract(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("1")
	conn, err := net.Dial("tcp", serveOn(t, h))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	reader := bufio.NewReader(conn)

	methods := []string{"FOO", "PROPFIND", "get", "Get", "head", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE",
		"OTHER", "M-SEARCH", "BREW", strings.Repeat("X", 200)}
	paths := []string{"/clan/search?name=royal", "/clan/2CCCP/history", "/healthz", "/tournaments/known", "/no/such/path", "/"}
	for _, method := range methods {
		for _, path := range paths {
			resp := rawExchange(t, conn, reader, fmt.Sprintf("%s %s HTTP/1.1\r\nHost: crowns\r\nauth: %s\r\nContent-Length: 0\r\n\r\n", method, path, key))
			name := method[:min(len(method), 10)] + " " + path
			body := readBody(t, resp)
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Fatalf("%s: status %d, want 405; body %s", name, resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s: Content-Type %q", name, ct)
			}
			if allow := resp.Header.Get("Allow"); allow != "GET, HEAD" {
				t.Errorf("%s: Allow %q, want GET, HEAD", name, allow)
			}
			var got errorBody
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("%s: body %q: %v", name, body, err)
			}
			if want := (errorBody{Error: true, StatusCode: 405, StatusText: "Method not allowed", Info: testSupportInfo}); got != want {
				t.Errorf("%s: body %+v, want %+v", name, got, want)
			}
		}
	}
	for _, method := range []string{"PROPFIND", "get"} {
		if !h.logs.contains("method=" + method + " ") {
			t.Errorf("the access log does not name method %s:\n%s", method, h.logs.String())
		}
	}

	// GET and HEAD still reach the routes, on the same connection.
	for _, method := range []string{"GET", "HEAD"} {
		resp := rawExchange(t, conn, reader, method+" /healthz HTTP/1.1\r\nHost: crowns\r\n\r\n")
		_ = readBody(t, resp)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s /healthz: %d", method, resp.StatusCode)
		}
	}
}

// TestAMethodNameIsLoggedCutAndWithoutAKey: the access line names the
// method a request came with, cut to 32 characters and with anything in
// it that starts like a key redacted, both for a request the routes
// answer and for one the HTTP server refuses before them (a body over the
// limit): a key sent as the method is not logged, nor most of one.
func TestAMethodNameIsLoggedCutAndWithoutAKey(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("2")
	random := key[len(keys.Prefix) : len(keys.Prefix)+keys.RandomLength]
	addr := serveOn(t, h)
	const overLimit = 17 << 10
	for _, method := range []string{key, key + key, "X" + key, strings.Repeat("Y", 200)} {
		for _, body := range []int{0, overLimit} {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			resp := rawExchange(t, conn, bufio.NewReader(conn), fmt.Sprintf("%s /healthz HTTP/1.1\r\nHost: crowns\r\nContent-Length: %d\r\n\r\n%s", method, body, strings.Repeat(" ", body)))
			conn.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed {
				t.Fatalf("a method of %d characters with a body of %d bytes: %d, want 405", len(method), body, resp.StatusCode)
			}
			line := h.logs.lineWith("requestId=" + resp.Header.Get("X-Request-Id") + " ")
			logged, _, _ := strings.Cut(line[strings.Index(line, " method=")+len(" method="):], " ")
			if strings.Contains(line, random[:8]) || len(logged) > 32 {
				t.Fatalf("a method of %d characters with a body of %d bytes is logged as %q:\n%s", len(method), body, logged, line)
			}
		}
	}
}
