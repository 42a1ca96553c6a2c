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
	oneShort := write("31 bytes", "dGhpcnR5LW9uZS1ieXRlcy1vZi1zZWNyZXQtMTIzNA==\n") // a byte short of 32
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
		{"a byte short", map[string]string{"CROWNS_SECRET_FILE": oneShort}, "CROWNS_SECRET_FILE must be base64 of at least 32 bytes"},
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

// TestSecretFileProblemIsReportedOnce: with PostgreSQL, a secret file that
// cannot be read, or is set beside CROWNS_SECRET, is the one problem of
// the secret: not also "CROWNS_SECRET is required", nor the other
// variable's value reported as CROWNS_SECRET_FILE's.
func TestSecretFileProblemIsReportedOnce(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte(testSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     map[string]string
		problem string
	}{
		{"missing file", map[string]string{"CROWNS_SECRET_FILE": filepath.Join(dir, "nope")}, "CROWNS_SECRET_FILE: cannot read the secret"},
		{"a directory", map[string]string{"CROWNS_SECRET_FILE": dir}, "CROWNS_SECRET_FILE: cannot read the secret"},
		{"both, the variable short", map[string]string{"CROWNS_SECRET_FILE": good, "CROWNS_SECRET": "c2hvcnQ="}, "set CROWNS_SECRET or CROWNS_SECRET_FILE, not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.env["CROWNS_DATABASE_URL"] = "postgres://crowns@db/crowns"
			_, err := loadConfig(func(name string) string { return tt.env[name] })
			if err == nil || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), tt.problem) {
				t.Fatalf("problems:\n%v\nwant the one %q", err, tt.problem)
			}
		})
	}
}
