package keys_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/crownsdev/crowns/keys"
)

func TestLoadOrCreateSecretGeneratesOnceAndReuses(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	first, source, err := keys.LoadOrCreateSecret(dataDir, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != keys.MinSecretLength {
		t.Fatalf("generated %d bytes, want %d", len(first), keys.MinSecretLength)
	}
	path := filepath.Join(dataDir, keys.SecretFileName)
	if !strings.Contains(source, path) || !strings.Contains(source, "generated") {
		t.Errorf("source %q, want the file path marked generated", source)
	}
	assertMode(t, path, 0o600)
	assertMode(t, dataDir, 0o700|os.ModeDir)

	second, source, err := keys.LoadOrCreateSecret(dataDir, "")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Fatal("second call returned a different secret")
	}
	if source != path {
		t.Errorf("source %q on reuse, want %q", source, path)
	}
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("data dir holds %d entries, want only %s", len(entries), keys.SecretFileName)
	}
}

func TestLoadOrCreateSecretConcurrentStartsAgree(t *testing.T) {
	dataDir := t.TempDir()
	const starts = 8
	secrets := make([][]byte, starts)
	errs := make([]error, starts)
	var wg sync.WaitGroup
	for i := range starts {
		wg.Go(func() { secrets[i], _, errs[i] = keys.LoadOrCreateSecret(dataDir, "") })
	}
	wg.Wait()
	for i := range starts {
		if errs[i] != nil {
			t.Fatalf("start %d: %v", i, errs[i])
		}
		if !bytes.Equal(secrets[i], secrets[0]) {
			t.Fatalf("start %d got a different secret than start 0", i)
		}
	}
}

func TestLoadOrCreateSecretFromEnvironment(t *testing.T) {
	raw := bytes.Repeat([]byte{7}, 40)
	dataDir := t.TempDir()
	secret, source, err := keys.LoadOrCreateSecret(dataDir, base64.StdEncoding.EncodeToString(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(secret, raw) || source != "CROWNS_SECRET" {
		t.Fatalf("got %d bytes from %q, want the 40 given bytes from CROWNS_SECRET", len(secret), source)
	}
	if _, err := os.Stat(filepath.Join(dataDir, keys.SecretFileName)); !os.IsNotExist(err) {
		t.Errorf("a secret file was written although CROWNS_SECRET was given (stat: %v)", err)
	}
}

func TestLoadOrCreateSecretRejects(t *testing.T) {
	good := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32)) + "\n"
	short := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 31))
	tests := []struct {
		name     string
		env      string
		content  string
		mode     os.FileMode
		wantText string
	}{
		{name: "group-readable file", content: good, mode: 0o640, wantText: "owner only"},
		{name: "world-readable file", content: good, mode: 0o604, wantText: "owner only"},
		{name: "file not base64", content: "not a secret!\n", mode: 0o600, wantText: "malformed"},
		{name: "file too short", content: short, mode: 0o600, wantText: "malformed"},
		{name: "empty file", content: "", mode: 0o600, wantText: "malformed"},
		{name: "environment not base64", env: "%%%", wantText: "CROWNS_SECRET"},
		{name: "environment too short", env: short, wantText: "CROWNS_SECRET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dataDir := t.TempDir()
			if tt.env == "" {
				path := filepath.Join(dataDir, keys.SecretFileName)
				if err := os.WriteFile(path, []byte(tt.content), tt.mode); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tt.mode); err != nil {
					t.Fatal(err)
				}
			}
			secret, _, err := keys.LoadOrCreateSecret(dataDir, tt.env)
			if err == nil {
				t.Fatalf("accepted, returned %d bytes", len(secret))
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not mention %q", err, tt.wantText)
			}
			if strings.Contains(err.Error(), strings.TrimSpace(good)) || (tt.env != "" && strings.Contains(err.Error(), tt.env)) {
				t.Errorf("error %q repeats the secret", err)
			}
		})
	}
}

func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Mode() & (os.ModePerm | os.ModeDir); got != want {
		t.Errorf("%s has mode %v, want %v", path, got, want)
	}
}

// TestLoadOrCreateSecretRefusesADataDirOthersCanWrite: a data directory
// that group or others may write to lets them replace the secret file (or
// plant one before it is generated), whatever the file's own mode: it is
// refused like a secret file others can read, with the chmod that mends
// it, and no secret is generated into it. One they may only read is used.
func TestLoadOrCreateSecretRefusesADataDirOthersCanWrite(t *testing.T) {
	good := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32)) + "\n"
	for _, mode := range []os.FileMode{0o777, 0o770, 0o702, 0o1777 | os.ModeSticky} {
		for _, existing := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v existing %v", mode, existing), func(t *testing.T) {
				dataDir := t.TempDir()
				path := filepath.Join(dataDir, keys.SecretFileName)
				if existing {
					if err := os.WriteFile(path, []byte(good), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.Chmod(dataDir, mode); err != nil {
					t.Fatal(err)
				}
				secret, _, err := keys.LoadOrCreateSecret(dataDir, "")
				if err == nil {
					t.Fatalf("accepted, returned %d bytes", len(secret))
				}
				if !errors.Is(err, keys.ErrSecretFileUnusable) || !strings.Contains(err.Error(), "chmod 700 "+dataDir) {
					t.Errorf("error %q: want an unusable secret file with its chmod", err)
				}
				if _, statErr := os.Stat(path); !existing && statErr == nil {
					t.Errorf("a secret was generated into %s", dataDir)
				}
			})
		}
	}
	t.Run("readable by others", func(t *testing.T) {
		dataDir := t.TempDir()
		if err := os.Chmod(dataDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, _, err := keys.LoadOrCreateSecret(dataDir, ""); err != nil {
			t.Fatalf("refused: %v", err)
		}
	})
}
