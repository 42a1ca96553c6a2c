package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// fuzzedRoutes are the GET routes whose path and query FuzzRequest
// writes; "{tag}" is replaced by the fuzzed tag.
var fuzzedRoutes = []string{
	"/clan/search", "/clan/{tag}/history", "/clan/{tag}/history/weekly", "/clan/{tag}/tracking",
	"/player/{tag}/battles", "/tournament/{tag}", "/tournaments/{tag}", "/auth/stats",
}

// contractBadRequests are the beginnings of the contract's 400 texts.
var contractBadRequests = []string{
	"illegal characters in tag '", "tag too short", "tag too long", "invalid value for '",
	"at least one filter is required: ",
}

// FuzzRequest sends the real app requests whose tag, query and
// validators a client writes: every answer is a 200 of valid JSON with an
// ETag that If-None-Match then matches (but for the key's usage, which
// the request itself changes), a 304, or one of the contract's refusals
// with its JSON body; never a 5xx.
func FuzzRequest(f *testing.F) {
	fx := newShapingFixture(f)
	h := fx.h
	seeds := []struct {
		route                   uint8
		tag, query, inm, encode string
	}{
		{0, "", "name=royal&limit=5&max=2&page=1&keys=tag,name", "", "gzip"},
		{0, "", "score=1000&minMembers=2&maxMembers=50&locationId=57000000", "", ""},
		{0, "", "maxMembers=10", "", ""},
		{1, fx.clan, "days=3&keys=score,members.tag", "", ""},
		{1, "%23" + strings.ToLower(fx.clan), "days=400", "", ""},
		{2, fx.clan, "days=-1", "", ""},
		{3, "#" + fx.clan, "exclude=snapshotCount", "*", ""},
		{4, fx.player, "max=5&page=2&exclude=team.deck,opponent", "", "br;q=1.0, gzip;q=0.5"},
		{4, fx.player, "max=0&page=1000001", "", ""},
		{4, fx.player, "max=3", "", "gzip, br, gzip;q=0"},
		{5, fx.tournament + "," + fx.secondTag, "keys=tag,members.name", `W/"x"`, "*;q=0"},
		{6, "joinable", "1k=1&open=0&full=2&max=100", "", ""},
		{6, "known", "inprep=1&page=99999999999999999999", "", ""},
		{7, "", "keys=requestCount", "", ""},
		{4, "2cc%20cp", "", "", ""},
		{5, "2PQ8%2C%2C2PQ8", "", "", ""},
		{1, tagUnknown, "days= 7 ", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.route, s.tag, s.query, s.inm, s.encode)
	}
	// A new key every few hundred requests: the harness clock stands
	// still, so a key's bucket never refills.
	key, sent := fx.key, 0
	get := func(target string, headers ...string) *http.Response {
		if sent++; sent%500 == 0 {
			key = h.issue(strconv.Itoa(800_000 + sent))
		}
		return h.get(target, append([]string{"auth", key}, headers...)...)
	}
	f.Fuzz(func(t *testing.T, route uint8, tag, query, ifNoneMatch, acceptEncoding string) {
		h.t = t // a fuzz target fails its own t, never f
		target := strings.ReplaceAll(fuzzedRoutes[int(route)%len(fuzzedRoutes)], "{tag}", tag) + "?" + query
		if !sendable(target, ifNoneMatch, acceptEncoding) {
			return
		}
		resp := get(target, "If-None-Match", ifNoneMatch, "Accept-Encoding", acceptEncoding)
		raw := readBody(t, resp)
		switch {
		case resp.StatusCode == http.StatusOK:
			etag := resp.Header.Get("ETag")
			if resp.Header.Get("Content-Encoding") == "" && !json.Valid(raw) {
				t.Fatalf("GET %s: 200 of invalid JSON %q", target, raw)
			}
			if etag == "" {
				t.Fatalf("GET %s: 200 without an ETag", target)
			}
			if strings.HasPrefix(target, "/auth/stats") {
				return // counts the request just answered: a new answer each time
			}
			if again := get(target, "If-None-Match", etag, "Accept-Encoding", acceptEncoding); again.StatusCode != http.StatusNotModified {
				t.Fatalf("GET %s with If-None-Match %s: %d, want 304", target, etag, again.StatusCode)
			}
		case resp.StatusCode == http.StatusNotModified:
		case resp.StatusCode >= 500:
			t.Fatalf("GET %s: %d %s", target, resp.StatusCode, raw)
		default:
			checkRefusal(t, "GET "+target, resp, raw, contractBadRequests)
		}
	})
}

// sendable tells whether a request of this target and header values can
// be written at all: a target that is a URL's path and query, without
// spaces or control characters, and header values without control
// characters (the HTTP server refuses such a request before the app).
func sendable(target string, values ...string) bool {
	if _, err := url.ParseRequestURI(target); err != nil || strings.ContainsFunc(target, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return false
	}
	for _, v := range values {
		if strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			return false
		}
	}
	return true
}

// checkRefusal fails t unless resp, of body raw, is one of the contract's
// 4xx answers: its status, Content-Type, and exactly its error body, a
// 400 worded as one of badRequests begins.
func checkRefusal(t *testing.T, request string, resp *http.Response, raw []byte, badRequests []string) {
	t.Helper()
	if resp.StatusCode < 400 || resp.StatusCode >= 500 {
		t.Fatalf("%s: status %d %s", request, resp.StatusCode, raw)
	}
	var body errorBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s: %d with %q, body %q (%v)", request, resp.StatusCode, resp.Header.Get("Content-Type"), raw, err)
	}
	if !body.Error || body.StatusCode != resp.StatusCode || body.Info != testSupportInfo || body.EventID != "" || body.StatusText == "" {
		t.Fatalf("%s: %d with the error body %s", request, resp.StatusCode, raw)
	}
	if resp.StatusCode == http.StatusBadRequest && !hasAnyPrefix(body.StatusText, badRequests) {
		t.Fatalf("%s: 400 %q is not worded as the contract words them", request, body.StatusText)
	}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, prefix := range prefixes {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}
