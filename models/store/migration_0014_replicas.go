package store

// replicasSchema creates replicas: each API process writes its id and the
// time it last said it was alive every few seconds, so each can count the
// live ones and take its share of a key's rate limit.
func replicasSchema(Dialect) []string {
	return []string{
		`CREATE TABLE replicas (
			id TEXT PRIMARY KEY,
			last_seen {{bigint}} NOT NULL)`,
	}
}
