package store

// tournamentRequestsSchema adds requested_at to tournaments: when a client
// of the API last looked the tournament up (GET /tournament/:tags), NULL
// for one only the scheduler found or refreshed. The known list is the
// tournaments that have one; looked_up_at, set by any full lookup (the
// refresher's too), cannot tell them apart. Rows stored before this
// migration have none: nobody can say who asked for them.
//
// tournaments_requested serves the known list (most recently updated
// first) without reading the discovered rows.
func tournamentRequestsSchema(Dialect) []string {
	return []string{
		`ALTER TABLE tournaments ADD COLUMN requested_at {{bigint}}`,
		`CREATE INDEX tournaments_requested ON tournaments (updated_at DESC, tag) WHERE requested_at IS NOT NULL`,
	}
}
