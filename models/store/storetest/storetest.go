// Package storetest gives each test an isolated, migrated database: a SQLite
// file in the test's temporary directory, and a fresh PostgreSQL schema when
// PostgreSQL is reachable; and, for tests of what crosses processes, two
// stores on one schema with their clan change listeners.
//
// PostgreSQL is found through CROWNS_TEST_POSTGRES_URL (default
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable). When it is
// unreachable the PostgreSQL subtests skip, except with CI=true, where they
// fail. CROWNS_TEST_ENGINES=sqlite (or postgres) limits the engines run.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/jackc/pgx/v5"
)

// DefaultPostgresURL is used when CROWNS_TEST_POSTGRES_URL is unset.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// Engines lists the engines the tests run on, per CROWNS_TEST_ENGINES.
func Engines() []store.Dialect {
	switch strings.TrimSpace(os.Getenv("CROWNS_TEST_ENGINES")) {
	case "sqlite":
		return []store.Dialect{store.DialectSQLite}
	case "postgres":
		return []store.Dialect{store.DialectPostgres}
	}
	return []store.Dialect{store.DialectSQLite, store.DialectPostgres}
}

// EachEngine runs fn as a subtest named after each engine, with a fresh
// migrated store.
func EachEngine(t *testing.T, fn func(t *testing.T, db *store.Store)) {
	t.Helper()
	for _, engine := range Engines() {
		t.Run(string(engine), func(t *testing.T) {
			fn(t, Open(t, engine))
		})
	}
}

// Open returns a fresh migrated store on engine, closed and removed when
// the test ends.
func Open(t testing.TB, engine store.Dialect) *store.Store {
	t.Helper()
	cfg := Config(t, engine)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := store.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("open %s test database: %v", engine, err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s test database: %v", engine, err)
	}
	return db
}

// Config returns the DatabaseConfig of a fresh, empty (unmigrated) database
// on engine: a new temporary directory for SQLite, a new schema for
// PostgreSQL (dropped when the test ends).
func Config(t testing.TB, engine store.Dialect) store.DatabaseConfig {
	t.Helper()
	if engine == store.DialectSQLite {
		return store.DatabaseConfig{DataDir: t.TempDir()}
	}
	return store.DatabaseConfig{URL: freshSchema(t), DataDir: t.TempDir()}
}

// PostgresURL returns the URL of a fresh PostgreSQL schema, for tests that
// run the crowns binary itself against PostgreSQL.
func PostgresURL(t testing.TB) string {
	t.Helper()
	return freshSchema(t)
}

func freshSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv("CROWNS_TEST_POSTGRES_URL")
	if base == "" {
		base = DefaultPostgresURL
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		unreachable(t, base, err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	schema := "crowns_test_" + randomSuffix(t)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create test schema: %v", err)
	}
	t.Cleanup(func() { dropSchema(t, base, schema) })
	return withSearchPath(t, base, schema)
}

func unreachable(t testing.TB, base string, err error) {
	t.Helper()
	where := base
	if u, perr := url.Parse(base); perr == nil {
		where = u.Redacted()
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("PostgreSQL at %s is unreachable and CI=true: %v", where, err)
	}
	t.Skipf("PostgreSQL at %s is unreachable: %v (set CI=true to fail instead)", where, err)
}

func dropSchema(t testing.TB, base, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Logf("drop test schema %s: %v", schema, err)
		return
	}
	defer func() { _ = conn.Close(context.Background()) }()
	if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
		t.Logf("drop test schema %s: %v", schema, err)
	}
}

func withSearchPath(t testing.TB, base, schema string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse CROWNS_TEST_POSTGRES_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func randomSuffix(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("random schema name: %v", err)
	}
	return fmt.Sprintf("%s_%d", hex.EncodeToString(b), time.Now().UnixNano()%1000)
}
