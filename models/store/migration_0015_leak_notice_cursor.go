package store

// leakNoticeCursorSchema starts the bot's position of leak notices
// ("leak-notices") where its log channel's ("audit-log") is: before this
// release the owner of a leaked key was told when its revocation was
// posted to the log channel, so every revocation up to there has been
// told. A database without a log channel's position starts from the
// beginning.
func leakNoticeCursorSchema(Dialect) []string {
	return []string{
		`INSERT INTO bot_cursors (name, position, updated_at)
			SELECT 'leak-notices', position, updated_at FROM bot_cursors WHERE name = 'audit-log'`,
	}
}
