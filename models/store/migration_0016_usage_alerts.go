package store

// usageAlertsSchema creates usage_alerts: when the bot last posted a usage
// alert of a key (Unix seconds), so that its cool-down holds across
// restarts of the bot and however many processes check.
func usageAlertsSchema(Dialect) []string {
	return []string{
		`CREATE TABLE usage_alerts (
			key_id {{bigint}} PRIMARY KEY REFERENCES api_keys(id),
			alerted_at {{bigint}} NOT NULL)`,
	}
}
