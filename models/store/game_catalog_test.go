package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestGameCatalogCopies(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		if _, err := db.GameCatalog(ctx, "cards"); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("GameCatalog before any save = %v, want ErrNotFound", err)
		}
		first := time.Date(2025, 6, 10, 4, 0, 0, 0, time.UTC)
		for i, body := range []string{`[{"id":1}]`, `[{"id":2}]`} {
			at := first.Add(time.Duration(i) * 24 * time.Hour)
			if err := db.SaveGameCatalog(ctx, models.GameCatalogCopy{Kind: "cards", Body: []byte(body), FetchedAt: at}); err != nil {
				t.Fatalf("SaveGameCatalog: %v", err)
			}
			got, err := db.GameCatalog(ctx, "cards")
			if err != nil || string(got.Body) != body || !got.FetchedAt.Equal(at) || got.Kind != "cards" {
				t.Errorf("copy %d: %+v, %v", i, got, err)
			}
		}
		if _, err := db.GameCatalog(ctx, "locations"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("another kind = %v, want ErrNotFound", err)
		}
	})
}
