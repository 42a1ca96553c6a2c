package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// leakedKeyPlaceholder stands, in the fuzzed report bodies, for a live
// key issued for the report.
const leakedKeyPlaceholder = "$KEY"

// leakReportBadRequests is the text of the 400 of a signed report that is
// no list of tokens (the contract lists none; GitHub reads only the
// status).
var leakReportBadRequests = []string{"Bad Request"}

// FuzzLeakReport posts leak reports: a signed body that is a JSON array
// of reported tokens gets one verdict per token, true_positive exactly
// for the live key it names; any other signed body a 400, and a body
// without a valid signature a 401, each with the contract's error body;
// never a 5xx.
func FuzzLeakReport(f *testing.F) {
	github := newLeakSigner(f, "github-key-1")
	h := newLeakHarness(f, github)
	f.Add([]byte(`[{"token":"$KEY","type":"crowns_developer_key","url":"https://github.com/someone/app/blob/main/config.js","source":"content"}]`), false, "")
	f.Add([]byte(`[{"token":" $KEY\n","type":"crowns_developer_key","url":"","source":"npm"},{"token":"crw_not-a-key"},{"token":"$KEY"}]`), false, "")
	f.Add([]byte(`[{"token":"$KEY","url":"a\u0000b\tc","source":"gist"},null,{}]`), false, "")
	f.Add([]byte(`[]`), false, "")
	f.Add([]byte(`null`), false, "")
	f.Add([]byte(`{"token":"$KEY"}`), false, "")
	f.Add([]byte(`[{"token":1}]`), false, "")
	f.Add([]byte(`[{"token":"$KEY"}]`), true, "MEUCIQ==")
	f.Add([]byte(`[{"token":"$KEY"}]`), true, "not base64!")
	issued := 0
	f.Fuzz(func(t *testing.T, body []byte, forged bool, signature string) {
		h.t = t // a fuzz target fails its own t, never f
		if !sendable(leakReportPath, signature) {
			return
		}
		var key string
		if bytes.Contains(body, []byte(leakedKeyPlaceholder)) {
			issued++
			key = h.issue(strconv.Itoa(900_000 + issued))
			body = bytes.ReplaceAll(body, []byte(leakedKeyPlaceholder), []byte(key))
		}
		headers := github.signed(t, body)
		if forged {
			headers[3] = signature
		}
		resp := h.postReport(body, headers...)
		raw := readBody(t, resp)
		switch {
		case forged:
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("report %q with signature %q: %d %s, want 401", body, signature, resp.StatusCode, raw)
			}
			checkRefusal(t, "a forged report", resp, raw, nil)
			if key != "" {
				if _, err := h.keys.Verify(t.Context(), key); err != nil {
					t.Fatalf("a forged report of a key changed it: %v", err)
				}
			}
		case resp.StatusCode == http.StatusOK:
			checkVerdicts(t, body, raw, key)
		default:
			var tokens []struct {
				Token, Type, URL, Source string
			}
			if (json.Unmarshal(body, &tokens) == nil && tokens != nil) || resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("signed report %q: %d %s", body, resp.StatusCode, raw)
			}
			checkRefusal(t, "a signed report", resp, raw, leakReportBadRequests)
		}
	})
}

// checkVerdicts fails t unless raw is the verdicts of the report body:
// one per reported token, in order, with the token and type as reported,
// true_positive for the live key key only.
func checkVerdicts(t *testing.T, body, raw []byte, key string) {
	t.Helper()
	var reported []struct{ Token, Type string }
	if err := json.Unmarshal(body, &reported); err != nil {
		t.Fatalf("report %q answered 200 %s, but it is no list of tokens: %v", body, raw, err)
	}
	var verdicts []verdict
	if err := json.Unmarshal(raw, &verdicts); err != nil || len(verdicts) != len(reported) {
		t.Fatalf("report %q: verdicts %s (%v), want %d", body, raw, err, len(reported))
	}
	for i, v := range verdicts {
		want := "false_positive"
		if key != "" && strings.TrimSpace(reported[i].Token) == key {
			want = "true_positive"
		}
		if v.TokenRaw != reported[i].Token || v.TokenType != reported[i].Type || v.Label != want {
			t.Fatalf("report %q: verdict %d is %+v, want %q, %q, %s", body, i, v, reported[i].Token, reported[i].Type, want)
		}
	}
}
