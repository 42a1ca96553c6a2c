package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// sqliteError is an error with a SQLite result code, as the SQLite
// driver's errors give it.
type sqliteError int

func (e sqliteError) Error() string { return fmt.Sprintf("sqlite error (%d)", int(e)) }
func (e sqliteError) Code() int     { return int(e) }

// TestTranslateSQLiteStorageFailures: a database file that cannot be
// written is a failure of the database, not of the request: the SQLite
// driver's own error for it becomes unavailable.
func TestTranslateSQLiteStorageFailures(t *testing.T) {
	raw, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	ctx := context.Background()
	for _, statement := range []string{"CREATE TABLE t (n INTEGER)", "PRAGMA query_only = ON"} {
		if _, err := raw.ExecContext(ctx, statement); err != nil {
			t.Fatal(err)
		}
	}
	_, readOnly := raw.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	if readOnly == nil {
		t.Fatal("a read-only database took a write")
	}
	db := storetest.Open(t, store.DialectSQLite)
	var unavailable *models.UnavailableError
	if got := db.Translate(fmt.Errorf("write: %w", readOnly)); !errors.As(got, &unavailable) {
		t.Fatalf("Translate(%v) = %v, want unavailable", readOnly, got)
	}
}

// TestTranslateUnavailable: every way a database can fail to answer, as
// the drivers report it (wrapped, as store methods wrap them), becomes an
// unavailable error of source "database", which the API answers 503; an
// error in the query itself does not.
func TestTranslateUnavailable(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	pgCode := func(code string) error { return &pgconn.PgError{Code: code, Message: "x"} }
	cases := []struct {
		name        string
		err         error
		unavailable bool
	}{
		{"lost mid-query", io.ErrUnexpectedEOF, true},
		{"net.OpError", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true},
		{"bare reset", syscall.ECONNRESET, true},
		{"refused", syscall.ECONNREFUSED, true},
		{"broken pipe", syscall.EPIPE, true},
		{"connection done", sql.ErrConnDone, true},
		{"closed pool", errors.New("sql: database is closed"), true},
		{"deadline", context.DeadlineExceeded, true},
		{"pgconn connect", &pgconn.ConnectError{}, true},
		{"connection exception 08006", pgCode("08006"), true},
		{"admin shutdown", pgCode("57P01"), true},
		{"crash shutdown", pgCode("57P02"), true},
		{"cannot connect now", pgCode("57P03"), true},
		{"statement timeout", pgCode("57014"), true},
		{"lock timeout", pgCode("55P03"), true},
		{"too many connections", pgCode("53300"), true},
		{"sqlite locked", errors.New("database is locked (5) (SQLITE_BUSY)"), true},
		{"sqlite busy, by code", sqliteError(5), true},
		{"sqlite read-only", sqliteError(8), true},
		{"sqlite read-only, extended code", sqliteError(8 | 3<<8), true},
		{"sqlite interrupted by the deadline", sqliteError(9), true},
		{"sqlite I/O error", sqliteError(10), true},
		{"sqlite disk full", sqliteError(13), true},
		{"sqlite cannot open", sqliteError(14), true},
		{"sqlite constraint", sqliteError(19), false},
		{"sqlite syntax", sqliteError(1), false},
		{"syntax error", pgCode("42601"), false},
		{"unique violation", pgCode("23505"), false},
		{"plain error", errors.New("something else"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := db.Translate(fmt.Errorf("read tracking status: %w", tc.err))
			var unavailable *models.UnavailableError
			isUnavailable := errors.As(got, &unavailable) && unavailable.Source == "database"
			if isUnavailable != tc.unavailable {
				t.Fatalf("Translate(%v) = %v; unavailable %v, want %v", tc.err, got, isUnavailable, tc.unavailable)
			}
			if isUnavailable && unavailable.RetryAfter <= 0 {
				t.Errorf("no Retry-After advice in %v", got)
			}
		})
	}
}
