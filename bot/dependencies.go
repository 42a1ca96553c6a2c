package bot

import (
	"context"
	"time"
)

// Dependencies are the parts of other roles the bot calls.
type Dependencies struct {
	// Keys is the developer-key service (required).
	Keys KeyService
	// Cursors keeps the log channel's position in the key-event outbox
	// (required; *store.Store implements it).
	Cursors CursorStore
	// Weekly switches weekly collection of a tracked clan for /clan
	// weekly; nil answers that the feature is not available here.
	Weekly WeeklyCollection
	// Usage reads key usage for /key stats, /keyadmin info and top, and
	// the usage alerts; nil answers that usage is not available here
	// and posts no alerts.
	Usage UsageReader
}

// CursorStore remembers how far an outbox reader got.
type CursorStore interface {
	BotCursorPosition(ctx context.Context, name string) (int64, error)
	SaveBotCursorPosition(ctx context.Context, name string, position int64, at time.Time) error
}

// WeeklyCollection switches weekly snapshots of a tracked clan on or off
// and reports whether that changed anything. tag is normalised
// (models.NormalizeTag). Errors: models.ErrNotFound for an unknown clan,
// models.ErrNotTracked for one no longer tracked, models.ErrUnavailable
// when the database cannot answer. Clan tracking's store implements it.
type WeeklyCollection interface {
	SetWeekly(ctx context.Context, tag string, on bool) (changed bool, err error)
}
