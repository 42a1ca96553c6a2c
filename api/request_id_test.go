package api_test

import (
	"bufio"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/valyala/fasthttp"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/internal/metricstest"
	"github.com/crownsdev/crowns/keys"
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
	if got := h.get("/healthz", "X-Request-Id", "bad id\t<x>").Header.Get("X-Request-Id"); !strings.HasPrefix(got, prefix+"-") {
		t.Fatalf("an unsafe caller id was replaced by %q, want one of ours", got)
	}
	if !h.logs.contains("requestId=caller.id-42") {
		t.Fatal("the access log does not carry the caller's request id")
	}
}

// accessLogModes are the two ways the server writes its INFO access
// lines: through the logger, or itself (Config.AccessLines); both must
// write the same lines.
var accessLogModes = map[string]bool{"through the logger": false, "written directly": true}

func TestAccessLogCanBeSwitchedOff(t *testing.T) {
	for mode, direct := range accessLogModes {
		t.Run(mode, func(t *testing.T) { testAccessLogCanBeSwitchedOff(t, direct) })
	}
}

func testAccessLogCanBeSwitchedOff(t *testing.T, direct bool) {
	down := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"reason":"inMaintenance"}`))
	})
	h := newHarness(t, harnessOptions{upstream: down, directAccessLog: direct, config: func(c *api.Config) { c.AccessLog = false }})
	key := h.issue("31")
	if resp := h.get("/healthz"); resp.StatusCode != http.StatusOK {
		t.Fatalf("healthz: %d", resp.StatusCode)
	}
	if h.logs.contains("msg=request ") {
		t.Fatalf("an access line was written with the access log off:\n%s", h.logs.String())
	}
	if resp := h.get("/clan/search?name=royal", "auth", key); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("search with the upstream down: %d", resp.StatusCode)
	}
	if !h.logs.contains("msg=request ") || !h.logs.contains("status=503") {
		t.Fatalf("a 503 was not logged with the access log off:\n%s", h.logs.String())
	}
}

// TestAccessLinesCarryTheKeyIDAndNeverTheKey: the INFO line of an
// answered request has its route, status and latency and the key id of an
// authenticated request, never the key; a 5xx answer's line is a WARN.
func TestAccessLinesCarryTheKeyIDAndNeverTheKey(t *testing.T) {
	for mode, direct := range accessLogModes {
		t.Run(mode, func(t *testing.T) { testAccessLinesCarryTheKeyIDAndNeverTheKey(t, direct) })
	}
}

func testAccessLinesCarryTheKeyIDAndNeverTheKey(t *testing.T, direct bool) {
	down := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"reason":"inMaintenance"}`))
	})
	h := newHarness(t, harnessOptions{upstream: down, directAccessLog: direct})
	key := h.issue("32")
	if resp := h.get("/clan/2PPGG/history", "auth", key, "X-Request-Id", "info-1"); resp.StatusCode != http.StatusExpectationFailed {
		t.Fatalf("history of an untracked clan: %d", resp.StatusCode)
	}
	for _, want := range []string{"level=INFO msg=request requestId=info-1 method=GET route=/clan/:tag/history status=417 latency=", " keyId="} {
		if !h.logs.contains(want) {
			t.Fatalf("the access line lacks %q:\n%s", want, h.logs.String())
		}
	}
	if h.logs.contains(key) {
		t.Fatalf("the key was logged:\n%s", h.logs.String())
	}
	if resp := h.get("/clan/search?name=royal", "auth", key, "X-Request-Id", "warn-1"); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("search with the upstream down: %d", resp.StatusCode)
	}
	if !h.logs.contains("level=WARN msg=request requestId=warn-1") {
		t.Fatalf("the 503 line is not a warning:\n%s", h.logs.String())
	}
}

// TestDirectAccessLinesAreTheLoggersLines: the lines the server writes
// itself are those the logger writes for the same requests, and a line
// whose path slog would quote is left to the logger, quoted.
func TestDirectAccessLinesAreTheLoggersLines(t *testing.T) {
	lines := map[bool][]string{}
	for _, direct := range []bool{false, true} {
		h := newHarness(t, harnessOptions{directAccessLog: direct})
		key := h.issue("33")
		for _, path := range []string{"/healthz", "/clan/2PPGG/history", "/no/such/path", "/no/such=path"} {
			h.get(path, "auth", key, "X-Request-Id", "same-1")
		}
		h.get("/clan/2PPGG/history", "X-Request-Id", "same-2") // no key: 401
		for _, line := range strings.Split(strings.TrimSpace(h.logs.String()), "\n") {
			if strings.Contains(line, " msg=request ") {
				// The latency differs from run to run.
				line, _, _ = strings.Cut(line, " latency=")
				_, line, _ = strings.Cut(line, " ") // and so does the time
				lines[direct] = append(lines[direct], line)
			}
		}
	}
	if strings.Join(lines[false], "\n") != strings.Join(lines[true], "\n") {
		t.Fatalf("through the logger:\n%s\nwritten directly:\n%s", strings.Join(lines[false], "\n"), strings.Join(lines[true], "\n"))
	}
	if len(lines[true]) != 5 || !strings.Contains(lines[true][3], `route="/no/such=path"`) {
		t.Fatalf("want five lines, the fourth with its path quoted:\n%s", strings.Join(lines[true], "\n"))
	}
}

// TestAnswersOfTheHTTPServerCarryARequestID: a request the HTTP server
// refuses before the app sees it (a head over the read buffer or
// malformed, a body over the limit) is answered like any other: the
// contract's JSON body, an X-Request-Id of its own, nosniff, and an access
// line with that id and status.
func TestAnswersOfTheHTTPServerCarryARequestID(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	addr := serveOn(t, h)
	tooLargeHead := "GET /clan/search?name=royal HTTP/1.1\r\nHost: x\r\nX-Filler: " + strings.Repeat("a", 20<<10) + "\r\n\r\n"
	// Over 16 KiB, the limit of every request but a POST of a leak
	// report (256 KiB).
	bodyOf := func(method, path, extraHeader string, size int) string {
		return method + " " + path + " HTTP/1.1\r\nHost: x\r\n" + extraHeader + "Content-Length: " + strconv.Itoa(size) + "\r\n\r\n" + strings.Repeat(" ", size)
	}
	tooLargeBodyOf := func(method, path, extraHeader string) string { return bodyOf(method, path, extraHeader, 17<<10) }
	tooLargeBody := func(path, extraHeader string) string { return bodyOf("POST", path, extraHeader, 257<<10) }
	ids := map[string]bool{}
	refuse := func(t *testing.T, conn net.Conn, reader *bufio.Reader, request string, status int) string {
		t.Helper()
		resp := rawExchange(t, conn, reader, request)
		body := readBody(t, resp)
		if resp.StatusCode != status || !strings.Contains(string(body), `"statusCode":`+strconv.Itoa(status)) {
			t.Fatalf("status %d, body %s; want %d with the contract's body", resp.StatusCode, body, status)
		}
		id := resp.Header.Get("X-Request-Id")
		if id == "" || ids[id] || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("X-Request-Id %q (empty or given before: %v), X-Content-Type-Options %q", id, ids[id], resp.Header.Get("X-Content-Type-Options"))
		}
		ids[id] = true
		if line := h.logs.lineWith("requestId=" + id + " "); !strings.Contains(line, "status="+strconv.Itoa(status)) {
			t.Fatalf("the access line of request %s: %q", id, line)
		}
		return id
	}
	dial := func(t *testing.T) (net.Conn, *bufio.Reader) {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn, bufio.NewReader(conn)
	}
	t.Run("heads too large, each on a new connection", func(t *testing.T) {
		for range 3 {
			conn, reader := dial(t)
			refuse(t, conn, reader, tooLargeHead, http.StatusRequestHeaderFieldsTooLarge)
		}
	})
	t.Run("malformed head", func(t *testing.T) {
		conn, reader := dial(t)
		refuse(t, conn, reader, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: nine\r\n\r\n", http.StatusBadRequest)
	})
	t.Run("body too large after another request", func(t *testing.T) {
		conn, reader := dial(t)
		first := rawExchange(t, conn, reader, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		readBody(t, first)
		ids[first.Header.Get("X-Request-Id")] = true
		refuse(t, conn, reader, tooLargeBody("/security/leaked-keys", ""), http.StatusRequestEntityTooLarge)
	})
	t.Run("body too large with the caller's id", func(t *testing.T) {
		conn, reader := dial(t)
		if id := refuse(t, conn, reader, tooLargeBody("/security/leaked-keys", "X-Request-Id: caller-413\r\n"), http.StatusRequestEntityTooLarge); id != "caller-413" {
			t.Fatalf("the caller's plain id came back as %q", id)
		}
	})
	t.Run("body too large for a method the route refuses", func(t *testing.T) {
		// The limit is met before routing; the method is what is wrong.
		for _, method := range []string{"POST", "FOO", "get"} {
			conn, reader := dial(t)
			resp := rawExchange(t, conn, reader, tooLargeBodyOf(method, "/clan/search?name=royal", ""))
			body := readBody(t, resp)
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" || !strings.Contains(string(body), `"Method not allowed"`) {
				t.Fatalf("%s with a body over the limit: %d, Allow %q, %s; want the contract's 405", method, resp.StatusCode, resp.Header.Get("Allow"), body)
			}
			if id := resp.Header.Get("X-Request-Id"); !strings.Contains(h.logs.lineWith("requestId="+id+" "), "status=405") {
				t.Fatalf("%s: no access line of the 405", method)
			}
		}
		conn, reader := dial(t)
		resp := rawExchange(t, conn, reader, tooLargeBodyOf("GET", "/security/leaked-keys", ""))
		if readBody(t, resp); resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Fatalf("GET of the leak reports with a body over the limit: %d, Allow %q; want 405, POST", resp.StatusCode, resp.Header.Get("Allow"))
		}
	})
	t.Run("body too large for a method the route takes", func(t *testing.T) {
		// GET and HEAD are the routes' methods: the body is what is wrong.
		for _, method := range []string{"GET", "HEAD"} {
			conn, reader := dial(t)
			resp := rawExchange(t, conn, reader, tooLargeBodyOf(method, "/clan/search?name=royal", ""))
			if readBody(t, resp); resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Allow") != "" {
				t.Fatalf("%s with a body over the limit: %d, Allow %q; want 413 without Allow", method, resp.StatusCode, resp.Header.Get("Allow"))
			}
		}
	})
	t.Run("body too large on a long path", func(t *testing.T) {
		conn, reader := dial(t)
		id := refuse(t, conn, reader, tooLargeBodyOf("GET", "/"+strings.Repeat("a", 4000), ""), http.StatusRequestEntityTooLarge)
		if line := h.logs.lineWith("requestId=" + id + " "); len(line) > 400 {
			t.Fatalf("the access line of a request on a 4,000-byte path is %d bytes: the path is not cut", len(line))
		}
	})
}

// TestRequestsTheHTTPServerRefusesAreCounted: a request the HTTP server
// refuses before any route sees it (a head too large, a malformed head, a
// body over the limit) is an answered request like the others, counted
// once under route "unmatched" with its status.
func TestRequestsTheHTTPServerRefusesAreCounted(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := newHarness(t, harnessOptions{config: func(c *api.Config) { c.Metrics = reg }})
	addr := serveOn(t, h)
	withBody := func(method, path string) string {
		const size = 17 << 10 // over the 16 KiB of every request but a leak report
		return method + " " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: " + strconv.Itoa(size) + "\r\n\r\n" + strings.Repeat(" ", size)
	}
	requests := []struct {
		request string
		status  int
	}{
		{"GET /clan/search?name=royal HTTP/1.1\r\nHost: x\r\nX-Filler: " + strings.Repeat("a", 20<<10) + "\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge},
		{"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: nine\r\n\r\n", http.StatusBadRequest},
		{withBody("GET", "/healthz"), http.StatusRequestEntityTooLarge},
		{withBody("FOO", "/healthz"), http.StatusMethodNotAllowed},
	}
	for _, r := range requests {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		resp := rawExchange(t, conn, bufio.NewReader(conn), r.request)
		readBody(t, resp)
		conn.Close()
		if resp.StatusCode != r.status {
			t.Fatalf("%.30q: %d, want %d", r.request, resp.StatusCode, r.status)
		}
	}
	families := metricstest.Gather(t, reg)
	for _, r := range requests {
		labels := map[string]string{"route": "unmatched", "status": strconv.Itoa(r.status)}
		if got := families.Value("crowns_http_requests_total", labels); got != 1 {
			t.Errorf("crowns_http_requests_total%v = %v, want 1", labels, got)
		}
	}
	if got := families.Sum("crowns_http_requests_total", nil); got != float64(len(requests)) {
		t.Errorf("%v requests counted, want %d", got, len(requests))
	}
}

// TestNoAccessLineForConnectionsThatSentNoRequest: the HTTP server also
// answers a connection that sent nothing before its read timeout (408)
// or broke off (502) through the error handler; neither was a request,
// so neither gets an access line, though the answer carries an id.
func TestNoAccessLineForConnectionsThatSentNoRequest(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	app := h.server.App()
	for _, refusal := range []*fiber.Error{fiber.ErrRequestTimeout, fiber.ErrBadGateway} {
		var request fasthttp.RequestCtx
		c := app.AcquireCtx(&request)
		if err := app.ErrorHandler(c, refusal); err != nil {
			t.Fatal(err)
		}
		id := string(request.Response.Header.Peek("X-Request-Id"))
		app.ReleaseCtx(c)
		if request.Response.StatusCode() != refusal.Code || id == "" {
			t.Fatalf("%d: answered %d with X-Request-Id %q", refusal.Code, request.Response.StatusCode(), id)
		}
		if line := h.logs.lineWith("requestId=" + id + " "); line != "" {
			t.Fatalf("%d: an access line for no request: %s", refusal.Code, line)
		}
	}
}

// TestHeadsNotWholeAtTheReadTimeoutGetAnAccessLine: a client that sends
// part of a request's head and no more before the read timeout (a
// slow-headers client sending a byte at a time) is answered 408 with the
// contract's body and gets an access line of that 408, as every refused
// request does; a connection that sent nothing still gets the 408 and no
// line.
func TestHeadsNotWholeAtTheReadTimeoutGetAnAccessLine(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	h.server.App().Server().ReadTimeout = 200 * time.Millisecond
	addr := serveOn(t, h)
	for _, tt := range []struct {
		name, sent string
		line       bool
	}{
		{"part of a head", "GET /healthz HTTP/1.1\r\nHo", true},
		{"a request line", "GET /healthz HTTP/1.1\r\n", true},
		{"nothing", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := conn.Write([]byte(tt.sent)); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body := readBody(t, resp)
			id := resp.Header.Get("X-Request-Id")
			if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), `"statusCode":408`) || id == "" {
				t.Fatalf("status %d, body %s, X-Request-Id %q; want the contract's 408 with an id", resp.StatusCode, body, id)
			}
			line := h.logs.lineWith("requestId=" + id + " ")
			if tt.line && !strings.Contains(line, "status=408") {
				t.Fatalf("no access line of the 408 (%q)", line)
			}
			if !tt.line && line != "" {
				t.Fatalf("an access line for no request: %s", line)
			}
		})
	}
}

// TestACallerRequestIDHoldingAKeyIsNeitherKeptNorLogged: a caller's
// X-Request-Id is logged as sent, so one that holds a key (or what starts
// like one: a key put in the wrong header) is replaced by one of ours, in
// the app's answers and in those of the HTTP server, and the key is in no
// log line.
func TestACallerRequestIDHoldingAKeyIsNeitherKeptNorLogged(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("34")
	random := key[len(keys.Prefix) : len(keys.Prefix)+keys.RandomLength]
	for _, id := range []string{key, "trace-" + key, key[:20]} {
		for _, path := range []string{"/healthz", "/auth/stats", "/no/such/path"} {
			if got := h.get(path, "auth", key, "X-Request-Id", id).Header.Get("X-Request-Id"); strings.Contains(got, keys.Prefix) {
				t.Fatalf("%s with X-Request-Id %q: the answer's id is %q", path, id, got)
			}
		}
	}
	addr := serveOn(t, h)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const size = 257 << 10 // over the leak reports' limit: a 413 of the HTTP server
	resp := rawExchange(t, conn, bufio.NewReader(conn), "POST /security/leaked-keys HTTP/1.1\r\nHost: x\r\nX-Request-Id: "+key+"\r\nContent-Length: "+strconv.Itoa(size)+"\r\n\r\n"+strings.Repeat(" ", size))
	if resp.StatusCode != http.StatusRequestEntityTooLarge || strings.Contains(resp.Header.Get("X-Request-Id"), keys.Prefix) {
		t.Fatalf("a body over the limit with the key as X-Request-Id: %d, X-Request-Id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	if h.logs.contains(random[:12]) {
		t.Fatalf("the key given as X-Request-Id was logged:\n%s", h.logs.String())
	}
}
