package store

// clanChangesSchema creates clan_changes, the outbox of clan changes on
// SQLite: every write that changes a clan's history answers adds a row in
// its own transaction, and every process reads the rows after the last
// one it saw (see ListenForClanChanges). PostgreSQL announces the same
// changes with NOTIFY and leaves the table empty. changed_at (Unix
// seconds) lets old rows be pruned.
func clanChangesSchema(Dialect) []string {
	return []string{
		`CREATE TABLE clan_changes (
			id {{id}},
			origin TEXT NOT NULL,
			tag TEXT NOT NULL,
			changed_at {{bigint}} NOT NULL)`,
		`CREATE INDEX clan_changes_changed_at ON clan_changes (changed_at)`,
	}
}
