package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// errSecretRequired: with PostgreSQL, several processes on several hosts
// share the database, so none may generate a secret of its own.
var errSecretRequired = errors.New(secretRequired +
	"set the same base64 secret on every host (make one with: openssl rand -base64 32)")

// secretRequired begins every line about a PostgreSQL deployment's
// missing secret.
const secretRequired = "CROWNS_SECRET is required with PostgreSQL (CROWNS_DATABASE_URL): "

// secretRequiredProblem words a PostgreSQL deployment's missing secret.
// Releases before the secret was required generated one into the data
// directory with PostgreSQL too, and sealed the stored keys with it: when
// that file is there, the line names it, since a new secret, as
// errSecretRequired advises, would be refused as not the database's.
func secretRequiredProblem(dataDir string) string {
	file := filepath.Join(dataDir, keys.SecretFileName)
	if info, err := os.Stat(file); dataDir == "" || err != nil || !info.Mode().IsRegular() {
		return errSecretRequired.Error()
	}
	return fmt.Sprintf(secretRequired+"%s holds the secret "+
		"an earlier release generated there, which this database's keys may be sealed with: "+
		"set CROWNS_SECRET to its content on every host (CROWNS_SECRET=\"$(cat %s)\")", file, shellQuoted(file))
}

// shellQuoted is s as one word of a POSIX shell command line, whatever
// it holds: in single quotes, each single quote of s closed, escaped and
// reopened.
func shellQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// errSecretFileLost: the generated secret file of the data directory is
// missing, but its database has been used with a secret, so a new one
// cannot be right.
var errSecretFileLost = errors.New("is missing, but this database was first used with a secret: " +
	"restore that file (mode 0600) from a backup, or set CROWNS_SECRET to the secret it held")

// secretRecorder tells whether the database has been used with a secret.
type secretRecorder interface {
	SecretRecorded(ctx context.Context) (bool, error)
}

// loadSecret returns the secret behind key digests and key encryption:
// CROWNS_SECRET, required with PostgreSQL (the configuration checks it); on
// SQLite, without it, the file generated once in the data directory,
// unless db has been used with a secret already: then the file was lost,
// and a new one would be wrong.
func loadSecret(ctx context.Context, cfg config, log *slog.Logger, db secretRecorder) ([]byte, error) {
	if cfg.Secret == "" && cfg.DataDir != "" {
		file := filepath.Join(cfg.DataDir, keys.SecretFileName)
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
			recorded, err := db.SecretRecorded(ctx)
			if err != nil {
				return nil, fmt.Errorf("key secret: %w", err)
			}
			// A first process starting beside this one publishes its file
			// before it records its secret: the file lost is one still
			// missing once the secret is recorded.
			if _, err := os.Stat(file); recorded && errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s %w", file, errSecretFileLost)
			}
		}
	}
	secret, source, err := keys.LoadOrCreateSecret(cfg.DataDir, cfg.Secret)
	if err != nil {
		return nil, fmt.Errorf("key secret: %w", err)
	}
	log.Debug("loaded key secret", "source", source)
	return secret, nil
}

// newKeyService builds the developer-key service on store with secret.
func newKeyService(secret []byte, db *store.Store, log *slog.Logger, clock models.Clock) (*keys.Service, error) {
	return keys.NewService(db, keys.Config{Secret: secret, Clock: clock, Logger: log})
}
