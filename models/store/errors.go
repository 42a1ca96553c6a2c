package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/crownsdev/crowns/models"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"
)

// Translate maps a driver or GORM error to the sentinels of package models: a
// missing record becomes ErrNotFound, a connection failure, timeout or lock
// contention becomes an UnavailableError of source "database". Other errors
// are returned unchanged.
func (s *Store) Translate(err error) error { return s.translate(err) }

func (s *Store) translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gorm.ErrRecordNotFound):
		return models.ErrNotFound
	case errors.Is(err, models.ErrNotFound), errors.Is(err, models.ErrInvalid), errors.Is(err, models.ErrUnavailable):
		return err
	case isUnavailable(err):
		return models.Unavailable("database", models.DatabaseRetryAfter, err)
	}
	return err
}

// Transient tells whether an error of opening or first using the
// database may pass by itself: the server unreachable, starting up or
// shutting down, out of connections, a statement or lock timeout. A
// refused login (SQLSTATE class 28) or a database that does not exist
// (3D000) is not: waiting does not mend a configuration.
func Transient(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (strings.HasPrefix(pgErr.Code, "28") || pgErr.Code == "3D000") {
		return false
	}
	return errors.Is(err, models.ErrUnavailable) || isUnavailable(err)
}

func isUnavailable(err error) bool {
	var (
		netErr     net.Error
		opErr      *net.OpError
		connectErr *pgconn.ConnectError
		pgErr      *pgconn.PgError
		sqliteErr  sqliteCoded
	)
	switch {
	case errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, io.EOF),
		errors.Is(err, driver.ErrBadConn),
		errors.Is(err, sql.ErrConnDone),
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, syscall.EPIPE),
		errors.As(err, &netErr),
		errors.As(err, &opErr),
		errors.As(err, &connectErr),
		pgconn.Timeout(err):
		return true
	case errors.As(err, &pgErr):
		return unavailableCode(pgErr.Code)
	case errors.As(err, &sqliteErr):
		return sqliteUnavailableCode(sqliteErr.Code())
	}
	msg := err.Error()
	return fileLocked(err) || strings.Contains(msg, "sql: database is closed") ||
		strings.Contains(msg, "conn closed") || strings.Contains(msg, "closed pool")
}

// unavailableCode tells the SQLSTATEs of a database that cannot answer
// now, as against a query that is wrong: class 08 (connection exception),
// class 53 (insufficient resources, 53300 too many connections among
// them), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect
// now), 57014 (query canceled: the statement timeout) and 55P03 (lock not
// available: the lock timeout).
func unavailableCode(code string) bool {
	switch code {
	case "57P01", "57P02", "57P03", "57014", "55P03":
		return true
	}
	return strings.HasPrefix(code, "08") || strings.HasPrefix(code, "53")
}

// sqliteCoded is how the SQLite driver's errors give their result code.
type sqliteCoded interface{ Code() int }

// sqliteUnavailableCode tells the SQLite result codes of a database that
// cannot do the work now, as against a statement that is wrong: busy or
// locked (5, 6), out of memory (7), read-only (8), interrupted (9: the
// driver's answer to a context deadline, like PostgreSQL's 57014), an I/O
// error (10), a full disk (13), a file that cannot be opened (14). An
// extended code carries its primary one in its low byte.
func sqliteUnavailableCode(code int) bool {
	switch code & 0xff {
	case 5, 6, 7, 8, 9, 10, 13, 14:
		return true
	}
	return false
}

// IsUniqueViolation reports whether err is a unique-constraint violation on
// either engine.
func IsUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "23505"
	}
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "constraint failed: UNIQUE")
}
