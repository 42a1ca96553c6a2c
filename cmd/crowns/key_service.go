package main

import (
	"fmt"
	"log/slog"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// newKeyService builds the developer-key service on store, with the
// secret from CROWNS_SECRET or the data directory.
func newKeyService(cfg config, store *models.Store, log *slog.Logger, clock models.Clock) (*keys.Service, error) {
	secret, source, err := keys.LoadOrCreateSecret(cfg.DataDir, cfg.Secret)
	if err != nil {
		return nil, fmt.Errorf("key secret: %w", err)
	}
	log.Debug("loaded key secret", "source", source)
	return keys.NewService(store, keys.Config{Secret: secret, Clock: clock, Logger: log})
}
