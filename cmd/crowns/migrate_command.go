package main

import (
	"context"
	"fmt"
)

const migrateUsageText = `Usage: crowns migrate

Applies the pending database migrations and prints the schema version.
It also rewrites the reasons stored by earlier releases with a key in them
into their redacted form (crw_[redacted]). crowns serve does both at
start-up too; with PostgreSQL, replicas starting together apply each
migration once. The database is the one configured by
CROWNS_DATABASE_URL (unset: the SQLite file in CROWNS_DATA_DIR).
Exit status: 0 done, 1 failed, 2 bad arguments or configuration.
`

// runMigrate applies pending migrations and exits.
func runMigrate(ctx context.Context, env cli, args []string) int {
	if _, code, done := parseCommand(env, "crowns migrate", migrateUsageText, args, noArguments("crowns migrate")); done {
		return code
	}
	_, log, db, secret, code := openCommandDatabase(ctx, env, "crowns migrate")
	if code != exitOK {
		return code
	}
	defer func() { _ = db.Close() }()
	service, err := newKeyService(secret, db, log, env.clock)
	if err != nil {
		commandFailed(env, "crowns migrate", err.Error())
		return exitFailure
	}
	// The schema is what this command is for: a rewrite that cannot be
	// done within the minute start-up waits for the database is logged
	// and left to the next start.
	redactCtx, cancel := context.WithTimeout(ctx, defaultDatabaseStartWait().patience)
	if !redactStoredReasons(redactCtx, service, log, env.clock, storedReasonsRetry()) && redactCtx.Err() != nil && ctx.Err() == nil {
		log.Warn("cannot redact the keys in stored reasons: the database did not answer; left for the next start")
	}
	cancel()
	version, err := db.SchemaVersion(ctx)
	if err != nil {
		commandFailed(env, "crowns migrate", err.Error())
		return exitFailure
	}
	fmt.Fprintf(env.stdout, "database schema at version %d\n", version)
	return exitOK
}
