//go:build unix

package keys_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/crownsdev/crowns/keys"
)

// TestLoadOrCreateSecretRefusesAFIFO: a secret.key that is a named pipe
// is refused as not a regular file, at once: opening it to read would
// wait for a writer for ever (and a start stuck there ignores SIGTERM).
func TestLoadOrCreateSecretRefusesAFIFO(t *testing.T) {
	dataDir := t.TempDir()
	path := filepath.Join(dataDir, keys.SecretFileName)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := keys.LoadOrCreateSecret(dataDir, "")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, keys.ErrSecretFileUnusable) || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("error %v, want a secret file that is not a regular file", err)
		}
	case <-time.After(10 * time.Second):
		// Let the blocked open go: a writer ends its wait.
		if w, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			_ = w.Close()
		}
		t.Fatal("LoadOrCreateSecret still waits on the named pipe")
	}
}
