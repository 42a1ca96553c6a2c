package store

// clanTrackingSchema creates the tables of clan tracking and history.
//
//   - tracked_clans: one row per clan ever tracked; untracking clears
//     active and keeps the row (and the history). tracked_by_key_id is the
//     id of the developer key that asked (never the key), NULL for an
//     operator; it is not a foreign key because history outlives keys.
//   - clan_players: a dictionary of immutable (tag, name) pairs; a rename
//     is a new row. Snapshots refer to members by these ids.
//   - clan_snapshots: one row per (clan, kind, slot), slot in Unix seconds,
//     the member list in the compact binary form of EncodeMemberStats. The
//     primary key is the time-range index of history reads and the
//     constraint that makes a repeated run harmless. On PostgreSQL the
//     table is partitioned by month of slot, so retention drops whole
//     partitions; on SQLite it is a WITHOUT ROWID table clustered on its
//     primary key.
//   - snapshot_jobs: the work of each (clan, kind, slot), claimed through
//     the database by the scheduler replicas. Times are Unix milliseconds
//     of the scheduler's clock: due_at is when a pending job may next be
//     tried, or when a running job's lease expires; deadline_at ends the
//     slot's window.
func clanTrackingSchema(d Dialect) []string {
	snapshots := `CREATE TABLE clan_snapshots (
			clan_id {{bigint}} NOT NULL REFERENCES tracked_clans(id),
			kind SMALLINT NOT NULL,
			slot {{bigint}} NOT NULL,
			donations INTEGER NOT NULL,
			member_count SMALLINT NOT NULL,
			members {{bytes}} NOT NULL,
			PRIMARY KEY (clan_id, kind, slot))`
	if d == DialectPostgres {
		snapshots += ` PARTITION BY RANGE (slot)`
	} else {
		snapshots += ` WITHOUT ROWID`
	}
	return []string{
		`CREATE TABLE tracked_clans (
			id {{id}},
			tag TEXT NOT NULL UNIQUE,
			name TEXT NOT NULL DEFAULT '',
			active {{bool}} NOT NULL,
			weekly {{bool}} NOT NULL DEFAULT FALSE,
			legible {{bool}} NOT NULL DEFAULT FALSE,
			override {{bool}} NOT NULL DEFAULT FALSE,
			tracked_since {{time}} NOT NULL,
			tracked_by TEXT NOT NULL,
			tracked_by_key_id {{bigint}},
			last_checked_at {{time}},
			untracked_at {{time}})`,
		`CREATE TABLE clan_players (
			id {{id}},
			tag TEXT NOT NULL,
			name TEXT NOT NULL,
			UNIQUE (tag, name))`,
		snapshots,
		`CREATE TABLE snapshot_jobs (
			clan_id {{bigint}} NOT NULL REFERENCES tracked_clans(id),
			kind SMALLINT NOT NULL,
			slot {{bigint}} NOT NULL,
			state TEXT NOT NULL,
			attempts INTEGER NOT NULL DEFAULT 0,
			due_at {{bigint}} NOT NULL,
			deadline_at {{bigint}} NOT NULL,
			lease_owner TEXT NOT NULL DEFAULT '',
			last_error TEXT NOT NULL DEFAULT '',
			finished_at {{bigint}},
			PRIMARY KEY (clan_id, kind, slot))`,
		`CREATE INDEX snapshot_jobs_due ON snapshot_jobs (due_at) WHERE state IN ('pending', 'running')`,
		`CREATE INDEX snapshot_jobs_slot ON snapshot_jobs (slot)`,
	}
}
