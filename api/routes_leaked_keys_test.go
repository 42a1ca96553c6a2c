package api_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// leakReportPath is the one route that takes POST.
const leakReportPath = "/security/leaked-keys"

// leakSigner signs leak reports as GitHub's secret scanning does, with a
// P-256 key made for the test.
type leakSigner struct {
	id  string
	key *ecdsa.PrivateKey
}

func newLeakSigner(t testing.TB, id string) leakSigner {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return leakSigner{id: id, key: key}
}

// sign returns the signature header value of body.
func (s leakSigner) sign(t testing.TB, body []byte) string {
	t.Helper()
	digest := sha256.Sum256(body)
	sig, err := ecdsa.SignASN1(rand.Reader, s.key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(sig)
}

// publicKeysJSON is the keys file, in GitHub's format, of these signers.
func publicKeysJSON(t testing.TB, signers ...leakSigner) []byte {
	t.Helper()
	type entry struct {
		ID      string `json:"key_identifier"`
		Key     string `json:"key"`
		Current bool   `json:"is_current"`
	}
	var file struct {
		PublicKeys []entry `json:"public_keys"`
	}
	for _, s := range signers {
		der, err := x509.MarshalPKIXPublicKey(&s.key.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		pemText := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
		file.PublicKeys = append(file.PublicKeys, entry{ID: s.id, Key: pemText, Current: true})
	}
	data, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// newLeakHarness is a harness whose API trusts signer's key.
func newLeakHarness(t testing.TB, signers ...leakSigner) *harness {
	t.Helper()
	trusted, err := api.ParseLeakReportKeys(publicKeysJSON(t, signers...))
	if err != nil {
		t.Fatal(err)
	}
	return newHarness(t, harnessOptions{config: func(cfg *api.Config) { cfg.LeakReportKeys = trusted }})
}

// postReport posts body to the leak route with these headers (name,
// value pairs).
func (h *harness) postReport(body []byte, headers ...string) *http.Response {
	h.t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/security/leaked-keys", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := h.server.App().Test(req, -1)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

// signed are the headers of body signed by s.
func (s leakSigner) signed(t testing.TB, body []byte) []string {
	return []string{"Github-Public-Key-Identifier", s.id, "Github-Public-Key-Signature", s.sign(t, body)}
}

type verdict struct {
	TokenRaw  string `json:"token_raw"`
	TokenType string `json:"token_type"`
	Label     string `json:"label"`
}

func reportOf(t *testing.T, tokens ...string) []byte {
	t.Helper()
	var parts []string
	for _, token := range tokens {
		parts = append(parts, fmt.Sprintf(`{"token":%q,"type":"crowns_developer_key","url":"https://github.com/someone/app/blob/main/config.js","source":"content"}`, token))
	}
	return []byte("[" + strings.Join(parts, ",") + "]")
}

func verdictsOf(t *testing.T, resp *http.Response) []verdict {
	t.Helper()
	raw := readBody(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200; body %s", resp.StatusCode, raw)
	}
	if got := resp.Header.Get("Cache-Control"); got != "private, no-store" {
		t.Errorf("Cache-Control %q, want private, no-store: the answer repeats the reported tokens", got)
	}
	var verdicts []verdict
	if err := json.Unmarshal(raw, &verdicts); err != nil {
		t.Fatalf("answer %s: %v", raw, err)
	}
	return verdicts
}

func TestSignedLeakReportRevokesLiveKeysAndSaysWhichWereReal(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	h := newLeakHarness(t, newLeakSigner(t, "github-key-0"), github)
	leaked, other := h.issue("1"), h.issue("2")
	expectStatus(t, h.get("/clan/search?name=royal", "auth", leaked), http.StatusOK)
	unknown, err := keys.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	body := reportOf(t, leaked, unknown, "crw_not-a-key", "")

	verdicts := verdictsOf(t, h.postReport(body, github.signed(t, body)...))
	want := []verdict{
		{leaked, "crowns_developer_key", "true_positive"},
		{unknown, "crowns_developer_key", "false_positive"},
		{"crw_not-a-key", "crowns_developer_key", "false_positive"},
		{"", "crowns_developer_key", "false_positive"},
	}
	if fmt.Sprint(verdicts) != fmt.Sprint(want) {
		t.Fatalf("verdicts %v, want %v", verdicts, want)
	}
	expectError(t, h.get("/clan/search?name=royal", "auth", leaked), http.StatusUnauthorized, "Unauthorized; unknown token")
	expectStatus(t, h.get("/clan/search?name=royal", "auth", other), http.StatusOK)
	events, err := h.keys.Events(t.Context(), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	last := events[len(events)-1]
	if last.Action != models.KeyActionRevoked || last.Actor != keys.ActorLeakReport || last.DiscordUserID != "1" ||
		last.Reason != "reported leaked at https://github.com/someone/app/blob/main/config.js" {
		t.Errorf("last key event %+v, want the leak revocation with its address", last)
	}

	// The same signed body again (GitHub sends a report again when an
	// answer failed, after some of its keys were revoked) changes nothing
	// and gets the same answers: the key is one a leak report revoked.
	replay := verdictsOf(t, h.postReport(body, github.signed(t, body)...))
	if fmt.Sprint(replay) != fmt.Sprint(want) {
		t.Errorf("replayed verdicts %v, want %v", replay, want)
	}
	if again, _ := h.keys.Events(t.Context(), 0, 100); len(again) != len(events) {
		t.Errorf("the replay recorded %d more events", len(again)-len(events))
	}
	// A key revoked otherwise (by its owner, here) is no longer live: a
	// report of it is a false positive.
	if err := h.keys.Revoke(t.Context(), "2", "discord:2", "revoked by its owner"); err != nil {
		t.Fatal(err)
	}
	otherReport := reportOf(t, other)
	if verdicts := verdictsOf(t, h.postReport(otherReport, github.signed(t, otherReport)...)); verdicts[0].Label != "false_positive" {
		t.Errorf("a key revoked by its owner reported: %v, want false_positive", verdicts[0])
	}
	// The owner gets a new key that works.
	fresh := h.issue("1")
	if fresh == leaked {
		t.Fatal("the revoked key came back")
	}
	expectStatus(t, h.get("/clan/search?name=royal", "auth", fresh), http.StatusOK)
}

// GitHub's url "may be empty" (a token found in an npm package, say):
// the revocation then records the source the report names, so that the
// owner's message and the log channel still say where the key was found.
func TestLeakReportWithoutAnAddressRecordsItsSource(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	h := newLeakHarness(t, github)
	tests := []struct {
		user, url, source, want string
	}{
		{"1", "", "npm", "reported leaked at an unnamed place (source: npm)"},
		{"2", "  ", "", "reported leaked at an unnamed place"},
		{"3", "https://github.com/o/r/blob/main/a.js", "commit", "reported leaked at https://github.com/o/r/blob/main/a.js"},
	}
	for _, tt := range tests {
		key := h.issue(tt.user)
		body := []byte(fmt.Sprintf(`[{"token":%q,"type":"crowns_developer_key","url":%q,"source":%q}]`, key, tt.url, tt.source))
		if verdicts := verdictsOf(t, h.postReport(body, github.signed(t, body)...)); verdicts[0].Label != "true_positive" {
			t.Fatalf("verdicts %v", verdicts)
		}
		events, err := h.keys.Events(t.Context(), 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if last := events[len(events)-1]; last.DiscordUserID != tt.user || last.Reason != tt.want {
			t.Errorf("url %q, source %q: revocation %+v, want reason %q", tt.url, tt.source, last, tt.want)
		}
	}
}

func TestLeakReportWithoutAValidSignatureChangesNothing(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	stranger := newLeakSigner(t, "github-key-1") // same identifier, other key
	h := newLeakHarness(t, github)
	key := h.issue("1")
	body := reportOf(t, key)
	other := reportOf(t, key, key)
	tests := []struct {
		name    string
		headers []string
	}{
		{"unsigned", nil},
		{"identifier without signature", []string{"Github-Public-Key-Identifier", github.id}},
		{"signature without identifier", []string{"Github-Public-Key-Signature", github.sign(t, body)}},
		{"unknown identifier", []string{"Github-Public-Key-Identifier", "github-key-2", "Github-Public-Key-Signature", github.sign(t, body)}},
		{"signed by another key", stranger.signed(t, body)},
		{"signature of another body", []string{"Github-Public-Key-Identifier", github.id, "Github-Public-Key-Signature", github.sign(t, other)}},
		{"signature not base64", []string{"Github-Public-Key-Identifier", github.id, "Github-Public-Key-Signature", "%%%"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectError(t, h.postReport(body, tt.headers...), http.StatusUnauthorized, "Unauthorized; missing or invalid signature")
			expectStatus(t, h.get("/clan/search?name=royal", "auth", key), http.StatusOK)
		})
	}
	// A server without keys refuses even a well-signed report.
	bare := newHarness(t, harnessOptions{})
	bareKey := bare.issue("1")
	bareBody := reportOf(t, bareKey)
	expectError(t, bare.postReport(bareBody, github.signed(t, bareBody)...), http.StatusUnauthorized, "Unauthorized; missing or invalid signature")
	expectStatus(t, bare.get("/clan/search?name=royal", "auth", bareKey), http.StatusOK)
}

func TestSignedLeakReportThatIsNotAReportIsRefused(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	h := newLeakHarness(t, github)
	key := h.issue("1")
	tests := []struct {
		name   string
		body   []byte
		status int
	}{
		{"not JSON", []byte(`[{"token":`), http.StatusBadRequest},
		{"an object, not an array", []byte(`{"token":"` + key + `"}`), http.StatusBadRequest},
		{"null, not an array", []byte(`null`), http.StatusBadRequest},
		{"null after white space", []byte(" \n null "), http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.postReport(tt.body, github.signed(t, tt.body)...)
			raw := readBody(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tt.status, raw)
			}
			expectStatus(t, h.get("/clan/search?name=royal", "auth", key), http.StatusOK)
		})
	}
	// Over the body limit of a report (256 KiB, which also bounds the
	// tokens of one report), on a real connection: the HTTP server answers
	// it by its Content-Length, before any handler and without reading the
	// body. Only the head is sent: a client still writing the body when
	// the server answers and closes may have the answer cut by a reset.
	huge := bytes.Repeat([]byte(" "), 257<<10)
	resp := postReportHeadOverTCP(t, serveOn(t, h), github, huge)
	if raw := readBody(t, resp); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over 256 KiB: status %d, want 413; body %s", resp.StatusCode, raw)
	}
}

// postReportHeadOverTCP sends to addr the head of a leak report of body
// signed by signer, and nothing of the body, on a connection of its own,
// and reads the answer: what the server answers from the head alone.
func postReportHeadOverTCP(t *testing.T, addr string, signer leakSigner, body []byte) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := fmt.Sprintf("POST /security/leaked-keys HTTP/1.1\r\nHost: crowns.test\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	for i, headers := 0, signer.signed(t, body); i+1 < len(headers); i += 2 {
		head += headers[i] + ": " + headers[i+1] + "\r\n"
	}
	return rawExchange(t, conn, bufio.NewReader(conn), head+"\r\n")
}

// postReportOverTCP posts body signed by signer to the leak route of h
// served on a real connection, where the HTTP server's limits apply as
// they do to GitHub's requests.
func postReportOverTCP(t *testing.T, h *harness, signer leakSigner, body []byte) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+serveOn(t, h)+"/security/leaked-keys", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i, headers := 0, signer.signed(t, body); i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestLargeLeakReportIsRead: GitHub may send many matches in one report;
// one past the 16 KiB every other request is held to is read whole, on a
// real connection, and each of its keys judged.
func TestLargeLeakReportIsRead(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	h := newLeakHarness(t, github)
	first, last := h.issue("1"), h.issue("2")
	tokens := []string{first}
	for range 150 {
		unknown, err := keys.NewKey()
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, unknown)
	}
	tokens = append(tokens, last)
	body := reportOf(t, tokens...)
	if len(body) <= 16<<10 {
		t.Fatalf("the report is %d bytes, want it over 16 KiB", len(body))
	}
	verdicts := verdictsOf(t, postReportOverTCP(t, h, github, body))
	if len(verdicts) != len(tokens) || verdicts[0].Label != "true_positive" || verdicts[len(tokens)-1].Label != "true_positive" || verdicts[1].Label != "false_positive" {
		t.Fatalf("%d verdicts, first %+v, last %+v; want %d, the two live keys true positives", len(verdicts), verdicts[0], verdicts[len(verdicts)-1], len(tokens))
	}
	for _, key := range []string{first, last} {
		expectError(t, h.get("/clan/search?name=royal", "auth", key), http.StatusUnauthorized, "Unauthorized; unknown token")
	}
}

// TestCompressedLeakReportIsRefusedUnread: a report with a
// Content-Encoding is a 415 whether signed or not, and never inflated (a
// gzip bomb of a few hundred bytes, 64 MiB of zeros twice compressed, is
// refused like the rest); nothing changes.
func TestCompressedLeakReportIsRefusedUnread(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	h := newLeakHarness(t, github)
	key := h.issue("1")
	report := reportOf(t, key)
	bomb := gzipped(t, gzipped(t, bytes.Repeat([]byte{0}, 64<<20)))
	tests := []struct {
		name     string
		body     []byte
		encoding string
	}{
		{"a signed report, gzipped", gzipped(t, report), "gzip"},
		{"a bomb", bomb, "gzip, gzip"},
		{"an unknown encoding", report, "br"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			headers := append(github.signed(t, tt.body), "Content-Encoding", tt.encoding)
			expectError(t, h.postReport(tt.body, headers...), http.StatusUnsupportedMediaType, "Unsupported Media Type")
			expectStatus(t, h.get("/clan/search?name=royal", "auth", key), http.StatusOK)
		})
	}
	// "identity" is no encoding at all.
	expectStatus(t, h.postReport(report, append(github.signed(t, report), "Content-Encoding", "identity")...), http.StatusOK)
	expectStatus(t, h.get("/clan/search?name=royal", "auth", key), http.StatusUnauthorized)
}

// gzipped is b compressed.
func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestLeakReportRouteTakesOnlyPost(t *testing.T) {
	h := newLeakHarness(t, newLeakSigner(t, "k"))
	for _, method := range []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete} {
		resp := h.do(method, "/security/leaked-keys")
		_ = readBody(t, resp)
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s: status %d, Allow %q; want 405 with Allow: POST", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
	resp := h.do(http.MethodPost, "/clan/search")
	_ = readBody(t, resp)
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST elsewhere: status %d, Allow %q; want 405 with Allow: GET, HEAD", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func TestLeakReportKeysFileIsCheckedWhole(t *testing.T) {
	good := publicKeysJSON(t, newLeakSigner(t, "a"), newLeakSigner(t, "b"))
	keys, err := api.ParseLeakReportKeys(good)
	if err != nil || keys.Len() != 2 {
		t.Fatalf("good file: %d keys, %v", keys.Len(), err)
	}
	for name, data := range map[string]string{
		"not JSON":         `{"public_keys":`,
		"no keys":          `{"public_keys":[]}`,
		"no identifier":    `{"public_keys":[{"key_identifier":"","key":"x"}]}`,
		"not PEM":          `{"public_keys":[{"key_identifier":"a","key":"MFkw"}]}`,
		"identifier twice": strings.Replace(string(good), `"b"`, `"a"`, 1),
	} {
		if _, err := api.ParseLeakReportKeys([]byte(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// expectStatus checks the status of resp.
func expectStatus(t *testing.T, resp *http.Response, status int) {
	t.Helper()
	if raw := readBody(t, resp); resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, raw)
	}
}

// A report's address is kept in the revocation's reason; control
// characters in it (a NUL, which PostgreSQL refuses in text; a terminal
// escape) become spaces, as line breaks do, so that the key is still
// revoked on either engine.
func TestLeakReportWithControlCharactersInItsAddressRevokesTheKey(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	trusted, err := api.ParseLeakReportKeys(publicKeysJSON(t, github))
	if err != nil {
		t.Fatal(err)
	}
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			h := newHarness(t, harnessOptions{engine: engine, config: func(cfg *api.Config) { cfg.LeakReportKeys = trusted }})
			key := h.issue("1")
			body := []byte(`[{"token":"` + key + `","type":"crowns_developer_key","url":"https://github.com/o/r/blob/main/a\u0000.js\u001b[31m","source":"content"}]`)
			if verdicts := verdictsOf(t, h.postReport(body, github.signed(t, body)...)); len(verdicts) != 1 || verdicts[0].Label != "true_positive" {
				t.Fatalf("verdicts %v, want the key a true positive", verdicts)
			}
			expectError(t, h.get("/clan/search?name=royal", "auth", key), http.StatusUnauthorized, "Unauthorized; unknown token")
			events, err := h.keys.Events(t.Context(), 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			if last, want := events[len(events)-1], "reported leaked at https://github.com/o/r/blob/main/a .js [31m"; last.Reason != want {
				t.Errorf("revocation %+v, want reason %q", last, want)
			}
		})
	}
}

// TestLargeLeakReportToAnAbsoluteTargetIsRead: a request may name its
// target in absolute form (POST http://host/security/leaked-keys), which
// routes to the leak reports like the path alone; a report past the
// 16 KiB of other requests sent so is read whole too, not refused 413.
func TestLargeLeakReportToAnAbsoluteTargetIsRead(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	h := newLeakHarness(t, github)
	key := h.issue("1")
	body := append(reportOf(t, key), bytes.Repeat([]byte(" "), 20<<10)...)
	conn, err := net.Dial("tcp", serveOn(t, h))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := fmt.Sprintf("POST http://crowns.test/security/leaked-keys HTTP/1.1\r\nHost: crowns.test\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	for i, headers := 0, github.signed(t, body); i+1 < len(headers); i += 2 {
		head += headers[i] + ": " + headers[i+1] + "\r\n"
	}
	verdicts := verdictsOf(t, rawExchange(t, conn, bufio.NewReader(conn), head+"\r\n"+string(body)))
	if len(verdicts) != 1 || verdicts[0].Label != "true_positive" {
		t.Fatalf("verdicts %v, want the key a true positive", verdicts)
	}
	expectError(t, h.get("/clan/search?name=royal", "auth", key), http.StatusUnauthorized, "Unauthorized; unknown token")
}

// TestLeakReportOfADisabledKeyRevokesIt: a key disabled because its owner
// left the community server is still theirs: reported leaked, it is
// revoked (a true positive), so that the owner coming back gets a new key
// instead of the leaked one re-enabled. A blacklisted key is no live key:
// a false positive, and nothing changes.
func TestLeakReportOfADisabledKeyRevokesIt(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	h := newLeakHarness(t, github)
	disabled, blacklisted := h.issue("1"), h.issue("2")
	if err := h.keys.Disable(t.Context(), "1", "bot", "left the server"); err != nil {
		t.Fatal(err)
	}
	if err := h.keys.Blacklist(t.Context(), "2", "spam", "moderator"); err != nil {
		t.Fatal(err)
	}
	before, err := h.keys.Events(t.Context(), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	body := reportOf(t, disabled, blacklisted)
	verdicts := verdictsOf(t, h.postReport(body, github.signed(t, body)...))
	want := []verdict{
		{disabled, "crowns_developer_key", "true_positive"},
		{blacklisted, "crowns_developer_key", "false_positive"},
	}
	if fmt.Sprint(verdicts) != fmt.Sprint(want) {
		t.Fatalf("verdicts %v, want %v", verdicts, want)
	}
	events, err := h.keys.Events(t.Context(), 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != len(before)+1 {
		t.Fatalf("%d events recorded, want the one revocation", len(events)-len(before))
	}
	if last := events[len(events)-1]; last.Action != models.KeyActionRevoked || last.Actor != keys.ActorLeakReport || last.DiscordUserID != "1" {
		t.Errorf("last key event %+v, want the leak revocation of the disabled key", last)
	}
	back := h.issue("1")
	if back == disabled {
		t.Fatal("the owner came back to the leaked key, re-enabled")
	}
	expectError(t, h.get("/clan/search?name=royal", "auth", disabled), http.StatusUnauthorized, "Unauthorized; unknown token")
	expectStatus(t, h.get("/clan/search?name=royal", "auth", back), http.StatusOK)
	expectError(t, h.get("/clan/search?name=royal", "auth", blacklisted), http.StatusForbidden, "Forbidden; key blacklisted")
}
