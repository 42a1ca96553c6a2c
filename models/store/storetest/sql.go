package storetest

import (
	"path/filepath"
	"testing"

	"github.com/crownsdev/crowns/models/store"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// SQL opens a second, independent GORM connection to db's database, closed
// when the test ends, for tests that read or write tables directly (a
// Store exposes no raw handle: all production SQL lives in package store).
// It keeps no idle connection, so calling it often holds no more
// database connections than the statements in flight.
func SQL(t testing.TB, db *store.Store) *gorm.DB {
	t.Helper()
	cfg := db.Config()
	dialector := sqlite.Open("file:" + filepath.Join(cfg.DataDir, store.SQLiteFileName) +
		"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
	if db.Dialect() == store.DialectPostgres {
		dialector = postgres.New(postgres.Config{DSN: cfg.URL})
	}
	conn, err := gorm.Open(dialector, &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatalf("open a second connection to the %s test database: %v", db.Dialect(), err)
	}
	sqlDB, err := conn.DB()
	if err != nil {
		t.Fatalf("second connection to the %s test database: %v", db.Dialect(), err)
	}
	sqlDB.SetMaxIdleConns(0)
	t.Cleanup(func() { _ = sqlDB.Close() })
	return conn
}
