package store

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"
)

// SaveGameCatalog stores c as the last copy of its kind, replacing the one
// before.
func (s *Store) SaveGameCatalog(ctx context.Context, c models.GameCatalogCopy) error {
	err := s.session(ctx).Exec(`INSERT INTO game_catalogs (kind, body, fetched_at) VALUES (?, ?, ?)
		ON CONFLICT (kind) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at`,
		c.Kind, string(c.Body), c.FetchedAt.UnixMilli()).Error
	if err != nil {
		return fmt.Errorf("save game catalog %s: %w", c.Kind, s.translate(err))
	}
	return nil
}

// GameCatalog returns the last stored copy of kind; ErrNotFound when none
// was stored.
func (s *Store) GameCatalog(ctx context.Context, kind string) (models.GameCatalogCopy, error) {
	var row struct {
		Body      string
		FetchedAt int64
	}
	res := s.session(ctx).Raw(`SELECT body, fetched_at FROM game_catalogs WHERE kind = ?`, kind).Scan(&row)
	if res.Error != nil {
		return models.GameCatalogCopy{}, fmt.Errorf("read game catalog %s: %w", kind, s.translate(res.Error))
	}
	if res.RowsAffected == 0 {
		return models.GameCatalogCopy{}, models.ErrNotFound
	}
	return models.GameCatalogCopy{Kind: kind, Body: []byte(row.Body), FetchedAt: time.UnixMilli(row.FetchedAt).UTC()}, nil
}
