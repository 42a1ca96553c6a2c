package keys_test

import (
	"testing"

	"github.com/crownsdev/crowns/keys"
)

func TestRedactHidesKeysAndTheirFragments(t *testing.T) {
	key, err := keys.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{"/clan/search", "/clan/search"},
		{"/" + key, "/crw_[redacted]"},
		{"/a/" + key + "/b/" + key[:20], "/a/crw_[redacted]/b/crw_[redacted]"},
		{"/" + key + "-x", "/crw_[redacted]-x"},
		{"crw_", "crw_[redacted]"},
		// A key right after another: the first one's run of base62
		// characters would take the "crw" of the second.
		{"/" + key + key, "/crw_[redacted]crw_[redacted]"},
		{"/" + key + key[:20] + "/x", "/crw_[redacted]crw_[redacted]/x"},
		// Text redacted already stays as it is: redacting twice (a stored
		// reason redacted again) adds nothing.
		{"crw_[redacted]", "crw_[redacted]"},
		{"it leaked: crw_[redacted] (in a gist)", "it leaked: crw_[redacted] (in a gist)"},
		{"crw_[redacted]" + key, "crw_[redacted]crw_[redacted]"},
		{"crw_[redacted]x " + key[:20], "crw_[redacted]x crw_[redacted]"},
		{"crw_[redact", "crw_[redacted][redact"},
	}
	for _, tt := range tests {
		if got := keys.Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := keys.Redact(keys.Redact(tt.in)); got != tt.want {
			t.Errorf("Redact(Redact(%q)) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
