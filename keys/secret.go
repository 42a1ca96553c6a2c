package keys

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// SecretFileName is the file in the data directory that holds the
// generated secret, base64-encoded on one line.
const SecretFileName = "secret.key"

// MinSecretLength is the least number of secret bytes accepted;
// generated secrets have exactly this many.
const MinSecretLength = 32

// ErrSecretFileUnusable is wrapped by the errors of a secret file that is
// there but cannot be used as it is: readable by others, not a regular
// file, or not a secret. The operator must mend it; trying again will not.
var ErrSecretFileUnusable = errors.New("unusable secret file")

// maxSecretFileSize bounds what is read from the secret file.
const maxSecretFileSize = 4096

// LoadOrCreateSecret returns the secret behind key digests and key
// encryption, and where it came from (for the start-up summary; never
// the secret itself):
//
//   - fromEnv (CROWNS_SECRET), base64 of at least 32 bytes, when set;
//   - else <dataDir>/secret.key, which must be readable by its owner only,
//     in a directory that neither group nor others may write to;
//   - else 32 new random bytes written there once, mode 0600 (the directory
//     is created 0700). The file appears complete or not at all: it is
//     written under a temporary name opened with O_EXCL and published with
//     a hard link, which fails when another process published first — and
//     then that process's secret is read and used.
func LoadOrCreateSecret(dataDir, fromEnv string) (secret []byte, source string, err error) {
	if fromEnv != "" {
		secret, err := decodeSecret([]byte(fromEnv))
		if err != nil {
			return nil, "", fmt.Errorf("CROWNS_SECRET: %w", err)
		}
		return secret, "CROWNS_SECRET", nil
	}
	if dataDir == "" {
		return nil, "", errors.New("no CROWNS_SECRET and no data directory to keep a generated secret in")
	}
	if err := checkDataDir(dataDir); err != nil {
		return nil, "", err
	}
	path := filepath.Join(dataDir, SecretFileName)
	secret, err = readSecretFile(path)
	if err == nil {
		return secret, path, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, "", err
	}
	secret, err = createSecretFile(dataDir, path)
	if errors.Is(err, fs.ErrExist) {
		secret, err = readSecretFile(path)
		return secret, path, err
	}
	if err != nil {
		return nil, "", err
	}
	return secret, path + " (generated)", nil
}

// checkDataDir refuses a data directory that group or others may write
// to: they could replace the secret file in it (or plant one before it is
// generated), whatever the file's own mode. One not there yet is created
// 0700 with the secret.
func checkDataDir(dataDir string) error {
	info, err := os.Stat(dataDir)
	if err != nil || !info.IsDir() {
		// Missing: created with the secret; anything else fails there.
		return nil
	}
	if perm := info.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("%w: the data directory %s has mode %04o: others could replace the secret file in it (chmod 700 %s)", ErrSecretFileUnusable, dataDir, perm, dataDir)
	}
	return nil
}

// readSecretFile reads and checks an existing secret file.
func readSecretFile(path string) ([]byte, error) {
	// Opened without blocking, so that a named pipe (whose opening would
	// wait for a writer, for ever) reaches the check of a regular file
	// below; reading a regular file is the same either way.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("open secret file: %w", err)
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("inspect secret file %s: %w", path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrSecretFileUnusable, path)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s has mode %04o: it must be readable by its owner only (chmod 600 %s)", ErrSecretFileUnusable, path, perm, path)
	}
	content, err := io.ReadAll(io.LimitReader(f, maxSecretFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read secret file %s: %w", path, err)
	}
	if len(content) > maxSecretFileSize {
		return nil, fmt.Errorf("%w: %s is malformed: larger than %d bytes", ErrSecretFileUnusable, path, maxSecretFileSize)
	}
	secret, err := decodeSecret(content)
	if err != nil {
		return nil, fmt.Errorf("%w: %s is malformed: %w", ErrSecretFileUnusable, path, err)
	}
	return secret, nil
}

// createSecretFile generates a secret and publishes it at path, or
// returns an error wrapping fs.ErrExist when path appeared meanwhile.
func createSecretFile(dataDir, path string) ([]byte, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	secret := make([]byte, MinSecretLength)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("generate secret: %w", err)
	}
	// os.CreateTemp opens with O_EXCL and mode 0600.
	tmp, err := os.CreateTemp(dataDir, "."+SecretFileName+".*")
	if err != nil {
		return nil, fmt.Errorf("create secret file: %w", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	encoded := base64.StdEncoding.EncodeToString(secret) + "\n"
	if _, err := tmp.WriteString(encoded); err != nil {
		_ = tmp.Close()
		return nil, fmt.Errorf("write secret file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return nil, fmt.Errorf("write secret file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("write secret file: %w", err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		return nil, fmt.Errorf("publish secret file: %w", err)
	}
	return secret, nil
}

// decodeSecret decodes base64 (surrounding white space allowed) of at
// least MinSecretLength bytes. Its errors never contain the input.
func decodeSecret(encoded []byte) ([]byte, error) {
	text := bytes.TrimSpace(encoded)
	secret := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(secret, text)
	if err != nil {
		return nil, errors.New("not valid base64")
	}
	if n < MinSecretLength {
		return nil, fmt.Errorf("%d bytes, want at least %d", n, MinSecretLength)
	}
	return secret[:n], nil
}
