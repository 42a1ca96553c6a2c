package store

// gameCatalogsSchema creates game_catalogs: the last copy of each list of
// game data fetched from the game API (cards, locations), so that a
// restart without the game API still maps answers with it.
func gameCatalogsSchema(Dialect) []string {
	return []string{
		`CREATE TABLE game_catalogs (
			kind TEXT PRIMARY KEY,
			body TEXT NOT NULL,
			fetched_at {{bigint}} NOT NULL)`,
	}
}
