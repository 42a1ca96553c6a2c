package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestMigrateCommandAppliesEveryMigrationOnce: `crowns migrate` on a fresh
// database applies every migration this binary knows, says so in the log,
// prints the schema version and exits 0; run again, it applies nothing
// and prints the same version.
func TestMigrateCommandAppliesEveryMigrationOnce(t *testing.T) {
	ctx := context.Background()
	// The reference: a fresh database migrated by the model layer itself
	// is at the latest version, with one row per migration.
	reference := storetest.Open(t, store.DialectSQLite)
	latest, migrationCount := schemaOf(t, reference)
	var versions []int
	if err := storetest.SQL(t, reference).WithContext(ctx).Raw(`SELECT version FROM schema_migrations ORDER BY version`).Scan(&versions).Error; err != nil {
		t.Fatal(err)
	}
	if latest < 1 || migrationCount < 1 {
		t.Fatalf("the reference database is at version %d with %d migrations", latest, migrationCount)
	}
	wantStdout := fmt.Sprintf("database schema at version %d\n", latest)
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			env := useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir()}, engine.databaseURL(t))
			migrate := func() (code int, stdout, stderr string) {
				var out, errOut bytes.Buffer
				code = run(ctx, []string{"migrate"}, testCLI(&out, &errOut, env))
				return code, out.String(), errOut.String()
			}

			code, stdout, stderr := migrate()
			if code != exitOK || stdout != wantStdout {
				t.Fatalf("first migrate = exit %d, stdout %q; want exit 0 and %q\nstderr:\n%s", code, stdout, wantStdout, stderr)
			}
			if applied := strings.Count(stderr, `msg="applied database migration"`); applied != migrationCount {
				t.Fatalf("first migrate logged %d applied migrations, want %d:\n%s", applied, migrationCount, stderr)
			}
			for _, version := range versions {
				if want := fmt.Sprintf("migration=%04d_", version); !strings.Contains(stderr, want) {
					t.Errorf("first migrate did not log %s…:\n%s", want, stderr)
				}
			}

			code, stdout, stderr = migrate()
			if code != exitOK || stdout != wantStdout {
				t.Fatalf("second migrate = exit %d, stdout %q; want exit 0 and %q\nstderr:\n%s", code, stdout, wantStdout, stderr)
			}
			if strings.Contains(stderr, "applied database migration") {
				t.Fatalf("second migrate applied a migration again:\n%s", stderr)
			}

			openCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			db, err := store.Open(openCtx, store.DatabaseConfig{URL: env["CROWNS_DATABASE_URL"], DataDir: env["CROWNS_DATA_DIR"]})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if version, rows := schemaOf(t, db); version != latest || rows != migrationCount {
				t.Fatalf("after two runs the database is at version %d with %d recorded migrations, want %d and %d", version, rows, latest, migrationCount)
			}
		})
	}
}

// schemaOf is store's schema version and its count of recorded migrations.
func schemaOf(t *testing.T, db *store.Store) (version, migrations int) {
	t.Helper()
	ctx := context.Background()
	version, err := db.SchemaVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	if err := storetest.SQL(t, db).WithContext(ctx).Table("schema_migrations").Count(&rows).Error; err != nil {
		t.Fatal(err)
	}
	return version, int(rows)
}
