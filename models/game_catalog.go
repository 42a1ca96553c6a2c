package models

import (
	"time"
)

// GameCatalogCopy is the last copy of one kind of game data fetched from
// the game API: its JSON as Crowns stored it, and when it was fetched.
type GameCatalogCopy struct {
	// Kind names the list, e.g. "cards" or "locations".
	Kind      string
	Body      []byte
	FetchedAt time.Time
}
