package store

// settingsSchema creates settings: one row of deployment-wide values that
// every process of the deployment must agree on. secret_check is the check
// value of the secret (never the secret) the database was first used with,
// so a process started with another secret refuses to start.
func settingsSchema(Dialect) []string {
	return []string{
		`CREATE TABLE settings (
			id {{bigint}} PRIMARY KEY CHECK (id = 1),
			secret_check TEXT,
			secret_recorded_at {{time}})`,
	}
}
