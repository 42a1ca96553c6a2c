package main

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// errSecretRequired: with PostgreSQL, several processes on several hosts
// share the database, so none may generate a secret of its own.
var errSecretRequired = errors.New("CROWNS_SECRET is required with PostgreSQL (CROWNS_DATABASE_URL): " +
	"set the same base64 secret on every host (make one with: head -c 32 /dev/urandom | base64)")

// errSecretFileLost: the generated secret file of the data directory was
// missing, but its database had been used with a secret, so a new one
// cannot be right.
var errSecretFileLost = errors.New("was missing, but this database was first used with another secret: " +
	"restore that file (mode 0600) from a backup, or set CROWNS_SECRET to the secret it held; " +
	"the secret generated now was removed")

// loadSecret returns the secret behind key digests and key encryption:
// CROWNS_SECRET, required with PostgreSQL; on SQLite, without it, the
// file generated once in the data directory. generatedFile names that
// file when this call generated it ("" otherwise).
func loadSecret(cfg config, log *slog.Logger) (secret []byte, generatedFile string, err error) {
	if cfg.DatabaseURL != "" && cfg.Secret == "" {
		return nil, "", errSecretRequired
	}
	var existed bool
	file := filepath.Join(cfg.DataDir, keys.SecretFileName)
	if cfg.Secret == "" && cfg.DataDir != "" {
		_, statErr := os.Stat(file)
		existed = statErr == nil
	}
	secret, source, err := keys.LoadOrCreateSecret(cfg.DataDir, cfg.Secret)
	if err != nil {
		return nil, "", fmt.Errorf("key secret: %w", err)
	}
	log.Debug("loaded key secret", "source", source)
	if cfg.Secret == "" && !existed {
		generatedFile = file
	}
	return secret, generatedFile, nil
}

// secretFileLost is the error of a secret generated into file (see
// loadSecret) that the database refused: the file is removed, so that the
// operator's next try does not meet it, and the error says what to do.
func secretFileLost(file string) error {
	if err := os.Remove(file); err != nil {
		return fmt.Errorf("%s %w (but removing it failed: %v)", file, errSecretFileLost, err)
	}
	return fmt.Errorf("%s %w", file, errSecretFileLost)
}

// newKeyService builds the developer-key service on store with secret.
func newKeyService(secret []byte, db *store.Store, log *slog.Logger, clock models.Clock) (*keys.Service, error) {
	return keys.NewService(db, keys.Config{Secret: secret, Clock: clock, Logger: log})
}
