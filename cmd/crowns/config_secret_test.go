package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretFromAFile: CROWNS_SECRET_FILE names a file holding the secret
// (as compose secrets mount it), trimmed; it is checked like
// CROWNS_SECRET, and setting both is refused.
func TestSecretFromAFile(t *testing.T) {
	const secret = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldC0xMjM0NTY3OA=="
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good, short, empty := write("good", secret+"\n"), write("short", "c2hvcnQ=\n"), write("empty", " \n")
	tests := []struct {
		name    string
		env     map[string]string
		problem string
	}{
		{"file", map[string]string{"CROWNS_SECRET_FILE": good}, ""},
		{"both", map[string]string{"CROWNS_SECRET_FILE": good, "CROWNS_SECRET": secret}, "set CROWNS_SECRET or CROWNS_SECRET_FILE, not both"},
		{"missing file", map[string]string{"CROWNS_SECRET_FILE": filepath.Join(dir, "nope")}, "CROWNS_SECRET_FILE: cannot read the secret"},
		{"empty file", map[string]string{"CROWNS_SECRET_FILE": empty}, "CROWNS_SECRET_FILE: " + empty + " is empty"},
		{"too short", map[string]string{"CROWNS_SECRET_FILE": short}, "CROWNS_SECRET_FILE must be base64 of at least 32 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ok := loadConfigExpecting(t, tt.env, tt.problem)
			if !ok {
				return
			}
			if cfg.Secret != secret {
				t.Fatalf("secret %q, want the file's content trimmed", cfg.Secret)
			}
			if source := secretSource(cfg); !strings.HasPrefix(source, "from CROWNS_SECRET_FILE (set, ") || strings.Contains(source, secret) {
				t.Fatalf("summary says %q", source)
			}
		})
	}
}
