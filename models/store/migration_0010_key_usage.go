package store

// keyUsageSchema creates key_usage: what was counted of each key's
// requests, per UTC hour and route pattern. hour is the hour's start in
// Unix seconds, so days are integer arithmetic on both engines. Each
// process adds its counts to the row (an upsert), so replicas' counts
// sum. Rows older than models.KeyUsageRetention are deleted.
func keyUsageSchema(Dialect) []string {
	return []string{
		`CREATE TABLE key_usage (
			key_id {{bigint}} NOT NULL REFERENCES api_keys(id),
			hour {{bigint}} NOT NULL,
			route TEXT NOT NULL,
			requests {{bigint}} NOT NULL DEFAULT 0,
			rate_limited {{bigint}} NOT NULL DEFAULT 0,
			client_errors {{bigint}} NOT NULL DEFAULT 0,
			server_errors {{bigint}} NOT NULL DEFAULT 0,
			PRIMARY KEY (key_id, hour, route))`,
		`CREATE INDEX key_usage_hour ON key_usage (hour)`,
	}
}
