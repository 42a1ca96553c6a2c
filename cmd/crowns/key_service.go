package main

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// errSecretRequired: with PostgreSQL, several processes on several hosts
// share the database, so none may generate a secret of its own.
var errSecretRequired = errors.New("CROWNS_SECRET is required with PostgreSQL (CROWNS_DATABASE_URL): " +
	"set the same base64 secret on every host (make one with: head -c 32 /dev/urandom | base64)")

// loadSecret returns the secret behind key digests and key encryption:
// CROWNS_SECRET, required with PostgreSQL; on SQLite, without it, the
// file generated once in the data directory.
func loadSecret(cfg config, log *slog.Logger) ([]byte, error) {
	if cfg.DatabaseURL != "" && cfg.Secret == "" {
		return nil, errSecretRequired
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
