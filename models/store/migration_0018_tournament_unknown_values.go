package store

// tournamentUnknownValuesSchema spells "unknown" the stored statuses and
// types the game API gave without naming one Crowns knows (its UNKNOWN, or
// a value added since): before this release they were stored as the game
// spelled them and reached clients outside the documented values; since,
// the upstream client reads every such value as "unknown".
func tournamentUnknownValuesSchema(Dialect) []string {
	return []string{
		`UPDATE tournaments SET status = 'unknown' WHERE status NOT IN ('inPreparation', 'inProgress', 'ended')`,
		`UPDATE tournaments SET type = 'unknown' WHERE type NOT IN ('open', 'passwordProtected')`,
	}
}
