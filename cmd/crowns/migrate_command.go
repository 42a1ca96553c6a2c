package main

import (
	"context"
	"fmt"
)

const migrateUsageText = `Usage: crowns migrate

Applies the pending database migrations and prints the schema version.
crowns serve migrates at start-up too; with PostgreSQL, replicas starting
together apply each migration once. The database is the one configured by
CROWNS_DATABASE_URL (unset: the SQLite file in CROWNS_DATA_DIR).
Exit status: 0 done, 1 failed, 2 bad arguments or configuration.
`

// runMigrate applies pending migrations and exits.
func runMigrate(ctx context.Context, env cli, args []string) int {
	if _, code, done := parseCommand(env, "crowns migrate", migrateUsageText, args, noArguments("crowns migrate")); done {
		return code
	}
	_, _, db, _, code := openCommandDatabase(ctx, env, "crowns migrate")
	if code != exitOK {
		return code
	}
	defer func() { _ = db.Close() }()
	version, err := db.SchemaVersion(ctx)
	if err != nil {
		commandFailed(env, "crowns migrate", err.Error())
		return exitFailure
	}
	fmt.Fprintf(env.stdout, "database schema at version %d\n", version)
	return exitOK
}
