package store

// botCursorsSchema creates bot_cursors: named positions a reader of an
// outbox has reached (the bot's position in key_events), so a restart
// neither repeats nor skips what was already handled.
func botCursorsSchema(Dialect) []string {
	return []string{
		`CREATE TABLE bot_cursors (
			name TEXT PRIMARY KEY,
			position {{bigint}} NOT NULL,
			updated_at {{time}} NOT NULL)`,
	}
}
