package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"
)

// catalogKind is one list of game data the CatalogRefresher keeps.
type catalogKind interface {
	name() string
	// fetch gets the list from the game API and, when it is usable,
	// stores it and makes it the current copy.
	fetch(ctx context.Context, c *Client, db CatalogStore, now time.Time) error
	// load makes the stored copy the current one.
	load(ctx context.Context, db CatalogStore) error
	// keeping says what is in use: the built-in data or a copy's time.
	keeping() string
	fetched() time.Time
}

// catalogList is one list of game data in its official shape: its current
// copy (nil: none, the built-in data stands) and when that was fetched.
type catalogList[T any] struct {
	kind, path string
	// valid tells an entry worth keeping (an id and a name).
	valid     func(T) bool
	items     []T
	fetchedAt time.Time
}

func (l *catalogList[T]) name() string       { return l.kind }
func (l *catalogList[T]) fetched() time.Time { return l.fetchedAt }

func (l *catalogList[T]) keeping() string {
	if l.items == nil {
		return "built-in"
	}
	return "copy fetched at " + l.fetchedAt.Format(time.RFC3339)
}

func (l *catalogList[T]) fetch(ctx context.Context, c *Client, db CatalogStore, now time.Time) error {
	items, err := listAll[T](ctx, c, l.path)
	if err != nil {
		return err
	}
	if err := l.check(items); err != nil {
		return err
	}
	l.items, l.fetchedAt = items, now
	body, err := json.Marshal(items)
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if err := db.SaveGameCatalog(ctx, models.GameCatalogCopy{Kind: l.kind, Body: body, FetchedAt: now}); err != nil {
		return fmt.Errorf("fetched and in use, but not stored: %w", err)
	}
	return nil
}

func (l *catalogList[T]) load(ctx context.Context, db CatalogStore) error {
	stored, err := db.GameCatalog(ctx, l.kind)
	if err != nil {
		return err
	}
	var items []T
	if err := json.Unmarshal(stored.Body, &items); err != nil {
		return fmt.Errorf("decode stored copy: %w", err)
	}
	if err := l.check(items); err != nil {
		return fmt.Errorf("stored copy: %w", err)
	}
	l.items, l.fetchedAt = items, stored.FetchedAt
	return nil
}

// check refuses an empty list and one with an entry lacking its id or
// name: what a game API answering nonsense sends.
func (l *catalogList[T]) check(items []T) error {
	if len(items) == 0 {
		return errors.New("the list is empty")
	}
	for i, item := range items {
		if !l.valid(item) {
			return fmt.Errorf("entry %d has no id or no name", i)
		}
	}
	return nil
}
