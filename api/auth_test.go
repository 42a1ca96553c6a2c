package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models/store/storetest"
)

const (
	textMissingKey     = "Unauthorized; missing authentication key"
	textUnknownKey     = "Unauthorized; unknown token"
	textKeyDisabled    = "Unauthorized; key disabled: its owner is no longer a member of the community server"
	textKeyBlacklisted = "Forbidden; key blacklisted"
)

// A protected route of every kind, for checks that apply to all of them.
var protectedPaths = []string{
	"/clan/search?name=royal",
	"/clan/2CCCP/history",
	"/clan/2CCCP/history/weekly",
	"/player/2CCCP/battles",
}

func TestAuthentication(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			h := newHarness(t, harnessOptions{engine: engine})
			ctx := context.Background()
			valid := h.issue("100")

			replaced := h.issue("101")
			if _, err := h.keys.Regenerate(ctx, keysDeveloper("101"), "test"); err != nil {
				t.Fatal(err)
			}
			disabled := h.issue("102")
			if err := h.keys.Disable(ctx, "102", "test", "left server"); err != nil {
				t.Fatal(err)
			}
			blacklisted := h.issue("103")
			if err := h.keys.Blacklist(ctx, "103", "abuse", "mod"); err != nil {
				t.Fatal(err)
			}
			revoked := h.issue("104")
			if err := h.keys.Revoke(ctx, "104", "test", "leaked"); err != nil {
				t.Fatal(err)
			}
			// Well-formed (right checksum) but never issued.
			unknown, err := keys.NewKey()
			if err != nil {
				t.Fatal(err)
			}

			tests := []struct {
				name    string
				headers []string
				status  int
				text    string
			}{
				{"no key", nil, http.StatusUnauthorized, textMissingKey},
				{"empty authorization", []string{"Authorization", ""}, http.StatusUnauthorized, textMissingKey},
				{"malformed key", []string{"auth", "not-a-key"}, http.StatusUnauthorized, textUnknownKey},
				{"bad checksum", []string{"auth", valid[:39] + flip(valid[39])}, http.StatusUnauthorized, textUnknownKey},
				{"unknown key", []string{"auth", unknown}, http.StatusUnauthorized, textUnknownKey},
				{"replaced key", []string{"auth", replaced}, http.StatusUnauthorized, textUnknownKey},
				{"revoked key", []string{"auth", revoked}, http.StatusUnauthorized, textUnknownKey},
				{"disabled key", []string{"auth", disabled}, http.StatusUnauthorized, textKeyDisabled},
				{"blacklisted key", []string{"auth", blacklisted}, http.StatusForbidden, textKeyBlacklisted},
				{"basic scheme", []string{"Authorization", "Basic " + valid}, http.StatusUnauthorized, textUnknownKey},
			}
			for _, path := range protectedPaths {
				for _, tt := range tests {
					t.Run(tt.name+" "+path, func(t *testing.T) {
						expectError(t, h.get(path, tt.headers...), tt.status, tt.text)
					})
				}
			}
		})
	}
}

func TestKeyHeadersAccepted(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("200")
	for _, headers := range [][]string{
		{"auth", key},
		{"Authorization", "Bearer " + key},
		{"Authorization", "bearer " + key},
		{"Authorization", "BEARER  " + key},
	} {
		resp := h.get("/clan/search?name=royal&limit=1", headers...)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("headers %q: status %d, want 200", headers[0]+": "+headers[1][:10], resp.StatusCode)
		}
	}
}

func TestKeyInQueryStringIsNotAccepted(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("201")
	for _, param := range []string{"auth", "key", "token", "authorization"} {
		expectError(t, h.get("/clan/search?name=royal&"+param+"="+key), http.StatusUnauthorized, textMissingKey)
	}
}

func TestTransitionsAreSeenOnTheNextRequest(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ctx := context.Background()
	key := h.issue("300")
	if resp := h.get("/clan/search?name=royal", "auth", key); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d before disable", resp.StatusCode)
	}
	if err := h.keys.Disable(ctx, "300", "test", "left server"); err != nil {
		t.Fatal(err)
	}
	expectError(t, h.get("/clan/search?name=royal", "auth", key), http.StatusUnauthorized, textKeyDisabled)

	again, err := h.keys.IssueOrRemind(ctx, keysDeveloper("300"), "test")
	if err != nil {
		t.Fatal(err)
	}
	if again.Key != key {
		t.Fatal("issue-or-remind after a disable did not re-enable the same key")
	}
	if resp := h.get("/clan/search?name=royal", "auth", key); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d after re-enable", resp.StatusCode)
	}
	fresh, err := h.keys.Regenerate(ctx, keysDeveloper("300"), "test")
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, h.get("/clan/search?name=royal", "auth", key), http.StatusUnauthorized, textUnknownKey)
	if resp := h.get("/clan/search?name=royal", "auth", fresh.Key); resp.StatusCode != http.StatusOK {
		t.Fatalf("regenerated key: status %d", resp.StatusCode)
	}
}

func TestKeyNeverLogged(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("400")
	h.get("/clan/search?name=royal", "auth", key)
	h.get("/player/2CCCP/battles", "Authorization", "Bearer "+key)
	h.get("/clan/search?name=royal", "auth", key[:39]+flip(key[39]))
	if h.logs.contains(key[4:34]) {
		t.Fatal("the key's random part appears in the logs")
	}
	if !h.logs.contains("keyId=") {
		t.Fatal("access log lines carry no key id")
	}
}

func TestDatabaseDownAnswers503(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("500")
	if err := h.db.Close(); err != nil {
		t.Fatal(err)
	}
	// The key is not in the verification cache (issuing does not fill
	// it), so verifying needs the closed database.
	resp := h.get("/clan/search?name=royal", "auth", key)
	expectError(t, resp, http.StatusServiceUnavailable, "Temporarily unavailable")
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	expectError(t, h.get("/readyz"), http.StatusServiceUnavailable, "Temporarily unavailable")
}

// flip returns a different base62 character.
func flip(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}

func keysDeveloper(discordUserID string) keys.Developer {
	return keys.Developer{DiscordUserID: discordUserID, DisplayName: "dev " + discordUserID}
}

// TestOneKeyHeaderIsRead: a request that carries both headers is judged
// by its auth header alone, and of a header sent twice by the first
// (docs/api.md): another key beside it, refused or valid, changes
// nothing.
func TestOneKeyHeaderIsRead(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	valid := h.issue("210")
	blacklisted := h.issue("211")
	if err := h.keys.Blacklist(context.Background(), "211", "test", "moderator"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		headers [][2]string
		status  int
	}{
		{"auth before Authorization", [][2]string{{"auth", valid}, {"Authorization", "Bearer " + blacklisted}}, http.StatusOK},
		{"Authorization before auth", [][2]string{{"Authorization", "Bearer " + valid}, {"auth", blacklisted}}, http.StatusForbidden},
		{"auth with a refused Authorization first", [][2]string{{"Authorization", "Bearer " + blacklisted}, {"auth", valid}}, http.StatusOK},
		{"auth twice, valid first", [][2]string{{"auth", valid}, {"auth", blacklisted}}, http.StatusOK},
		{"auth twice, refused first", [][2]string{{"auth", blacklisted}, {"auth", valid}}, http.StatusForbidden},
		{"Authorization twice, valid first", [][2]string{{"Authorization", "Bearer " + valid}, {"Authorization", "Bearer " + blacklisted}}, http.StatusOK},
		{"Authorization twice, refused first", [][2]string{{"Authorization", "Bearer " + blacklisted}, {"Authorization", "Bearer " + valid}}, http.StatusForbidden},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodGet, "/clan/search?name=royal&limit=1", nil)
		for _, header := range tt.headers {
			req.Header.Add(header[0], header[1])
		}
		resp, err := h.server.App().Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != tt.status {
			t.Errorf("%s: status %d, want %d", tt.name, resp.StatusCode, tt.status)
		}
	}
}
