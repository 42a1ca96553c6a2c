package store

// snapshotScoreSchema adds score, the clan's score at the snapshot's
// slot, to clan_snapshots: the legacy history answer carries it. On
// PostgreSQL the column reaches every partition of the table. Snapshots
// stored before it answer 0, as nothing recorded the score then.
func snapshotScoreSchema(Dialect) []string {
	return []string{
		`ALTER TABLE clan_snapshots ADD COLUMN score INTEGER NOT NULL DEFAULT 0`,
	}
}
