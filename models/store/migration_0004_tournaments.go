package store

// tournamentsSchema creates tournaments, the tournaments Crowns knows of
// (looked up through the API or found by the scheduler's searches), and
// periodic_tasks, the next run of work that one replica at a time does.
//
// Times are Unix seconds. start_time and end_time stay NULL until a full
// lookup reports them. looked_up_at is the last full lookup (NULL for a
// tournament only seen in search results); expected_change_at is when the
// status is due to move on (NULL once ended). claimed_by and claimed_until
// are a refresher's lease on the row: another replica leaves the row alone
// until the lease ends, and saving the row releases it.
//
// tournaments_recent serves the lists (most recently updated first);
// tournaments_refresh the refresher's search for due rows.
func tournamentsSchema(Dialect) []string {
	return []string{
		`CREATE TABLE tournaments (
			tag TEXT PRIMARY KEY,
			type TEXT NOT NULL,
			status TEXT NOT NULL,
			name TEXT NOT NULL,
			description TEXT NOT NULL DEFAULT '',
			capacity INTEGER NOT NULL,
			max_capacity INTEGER NOT NULL,
			preparation_duration INTEGER NOT NULL,
			duration INTEGER NOT NULL,
			create_time {{bigint}} NOT NULL,
			start_time {{bigint}},
			end_time {{bigint}},
			updated_at {{bigint}} NOT NULL,
			looked_up_at {{bigint}},
			expected_change_at {{bigint}},
			claimed_by TEXT NOT NULL DEFAULT '',
			claimed_until {{bigint}})`,
		`CREATE INDEX tournaments_recent ON tournaments (updated_at DESC, tag)`,
		`CREATE INDEX tournaments_refresh ON tournaments (status, updated_at)`,
		`CREATE TABLE periodic_tasks (
			name TEXT PRIMARY KEY,
			claimed_by TEXT NOT NULL,
			next_run_at {{bigint}} NOT NULL)`,
	}
}
