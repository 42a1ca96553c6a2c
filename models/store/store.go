package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/models"

	"github.com/glebarez/sqlite"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Dialect names the database engine behind a Store.
type Dialect string

// The two supported engines.
const (
	DialectSQLite   Dialect = "sqlite"
	DialectPostgres Dialect = "postgres"
)

// SQLiteFileName is the database file created in the data directory when no
// database URL is configured.
const SQLiteFileName = "crowns.db"

// databaseRetryAfter is what a client is told to wait when the database
// cannot answer.
const databaseRetryAfter = 5 * time.Second

// DatabaseConfig says which database to open.
type DatabaseConfig struct {
	// URL selects PostgreSQL when it starts with postgres:// or
	// postgresql://; empty selects the SQLite file in DataDir.
	URL string
	// DataDir holds the SQLite file; created with mode 0700 if missing.
	DataDir string
	// MaxOpenConns bounds the connection pool (default 16 on PostgreSQL,
	// 4 on SQLite).
	MaxOpenConns int
	// Logger receives slow-query and error logs; nil discards them.
	Logger *slog.Logger
	// Clock stamps what the store writes of its own accord (the times GORM
	// fills in itself, the clan-change outbox and its pruning, migrations
	// applied); nil is the system clock.
	Clock models.Clock
}

// Store is the database every role shares, and all of its SQL: key rows
// and key events, clan tracking, snapshots and their jobs, partitions and
// retention, tournaments, the game catalog copies, the bot's cursors and
// the clan-change feed. Its methods translate driver errors into the
// sentinel errors of package models at the boundary.
//
// It keeps two in-process caches: the immutable player dictionary rows (so
// a history read costs one query in steady state) and, on PostgreSQL, the
// monthly snapshot partitions known to exist. It announces every write
// that changes a clan's history answers to its subscribers (see
// SubscribeClanChanges). One Store per process is enough; it is safe for
// concurrent use.
type Store struct {
	db      *gorm.DB
	cfg     DatabaseConfig
	dialect Dialect
	log     *slog.Logger
	clock   models.Clock
	// players caches the player dictionary, partitions the snapshot
	// partitions known to exist, changes the clan-change subscribers.
	players    *playerCache
	partitions *partitionCache
	changes    *clanChanges
	// queries counts the statements sent (see QueryCount), and
	// backgroundQueries those of background work.
	queries, backgroundQueries atomic.Int64
	// url is the PostgreSQL connection string, for the dedicated
	// connection of the change listener; empty on SQLite.
	url string
	// changeChannel is the PostgreSQL NOTIFY channel of clan changes of
	// this database and schema; empty on SQLite.
	changeChannel string
	// listenRetry is the change listener's reconnection backoff.
	listenRetry backoff.Policy
}

// Open connects to the configured database and checks that it answers. It
// does not migrate; call Migrate for that.
func Open(ctx context.Context, cfg DatabaseConfig) (*Store, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	clock := cfg.Clock
	if clock == nil {
		clock = models.SystemClock{}
	}
	// GORM logs a failed open itself, without context; the caller gets the
	// error and says what failed, so opening logs nothing.
	gormConfig := &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		PrepareStmt:            false,
		NowFunc:                func() time.Time { return clock.Now().UTC() },
	}
	var dialect Dialect
	db, err := openPatiently(ctx, func() (*gorm.DB, error) {
		var dialector gorm.Dialector
		var err error
		if dialector, dialect, err = dialectorFor(cfg); err != nil {
			return nil, err
		}
		return gorm.Open(dialector, gormConfig)
	})
	if err != nil {
		if dialect == "" {
			return nil, err
		}
		return nil, fmt.Errorf("open %s database: %w", dialect, err)
	}
	db.Logger = newGormLogger(log)
	sqlDB, err := db.DB()
	if err != nil {
		return nil, fmt.Errorf("open %s database: %w", dialect, err)
	}
	configurePool(sqlDB, dialect, cfg.MaxOpenConns)
	store := &Store{
		db: db, cfg: cfg, dialect: dialect, log: log, clock: clock,
		players:     newPlayerCache(defaultPlayerCacheSize),
		partitions:  newPartitionCache(),
		changes:     newClanChanges(),
		listenRetry: listenRetry,
	}
	if err := store.countQueries(); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	if err := store.Ping(ctx); err != nil {
		_ = sqlDB.Close()
		return nil, err
	}
	if dialect == DialectPostgres {
		store.url = strings.TrimSpace(cfg.URL)
		if store.changeChannel, err = store.clanChangeChannel(ctx); err != nil {
			_ = sqlDB.Close()
			return nil, err
		}
	}
	return store, nil
}

func dialectorFor(cfg DatabaseConfig) (gorm.Dialector, Dialect, error) {
	url := strings.TrimSpace(cfg.URL)
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		dsn, err := withSessionLimits(url)
		if err != nil {
			return nil, "", models.Invalid("database URL cannot be parsed")
		}
		return postgres.New(postgres.Config{DSN: dsn}), DialectPostgres, nil
	case url != "":
		return nil, "", models.Invalid("database URL must start with postgres:// (or be empty for the embedded SQLite file)")
	}
	if cfg.DataDir == "" {
		return nil, "", models.Invalid("data directory is required for the embedded SQLite database")
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, "", fmt.Errorf("create data directory: %w", err)
	}
	path := filepath.Join(cfg.DataDir, SQLiteFileName)
	if err := ensurePrivateFile(path); err != nil {
		return nil, "", err
	}
	dsn := "file:" + path +
		"?_pragma=busy_timeout(" + fmt.Sprint(sqliteBusyTimeout.Milliseconds()) + ")" +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)" +
		"&_pragma=foreign_keys(1)" +
		"&_txlock=immediate"
	return sqlite.Open(dsn), DialectSQLite, nil
}

// ensurePrivateFile creates the SQLite file readable by its owner only, or
// narrows the mode of an existing one: it holds key digests and ciphertexts.
func ensurePrivateFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open database file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("open database file: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("restrict database file: %w", err)
	}
	return nil
}

func configurePool(db *sql.DB, dialect Dialect, maxOpen int) {
	if maxOpen <= 0 {
		maxOpen = 16
		if dialect == DialectSQLite {
			maxOpen = 4
		}
	}
	db.SetMaxOpenConns(maxOpen)
	db.SetMaxIdleConns(maxOpen)
	db.SetConnMaxIdleTime(5 * time.Minute)
}

// Dialect tells which engine this store runs on.
func (s *Store) Dialect() Dialect { return s.dialect }

// session returns the GORM handle bound to ctx, for this package's
// methods only: SQL stays in this package.
func (s *Store) session(ctx context.Context) *gorm.DB { return s.db.WithContext(ctx) }

// Config is the DatabaseConfig this store was opened with: where a
// second, independent connection to the same database is opened (as
// storetest does for tests that read tables directly).
func (s *Store) Config() DatabaseConfig { return s.cfg }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return s.translate(err)
	}
	return s.translate(sqlDB.PingContext(ctx))
}

// Close closes every connection.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// Translate maps a driver or GORM error to this package's sentinels: a
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
		return models.Unavailable("database", databaseRetryAfter, err)
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

// gormLogger forwards GORM's errors and slow queries to slog, never the
// query arguments (they may carry key digests); the failures of an
// unavailable database go to DEBUG, since their callers log them.
type gormLogger struct {
	log  *slog.Logger
	slow time.Duration
}

func newGormLogger(log *slog.Logger) logger.Interface {
	return &gormLogger{log: log, slow: 500 * time.Millisecond}
}

func (l *gormLogger) LogMode(logger.LogLevel) logger.Interface { return l }

func (l *gormLogger) Info(ctx context.Context, msg string, args ...any) {
	l.log.DebugContext(ctx, fmt.Sprintf(msg, args...), "component", "gorm")
}

func (l *gormLogger) Warn(ctx context.Context, msg string, args ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(msg, args...), "component", "gorm")
}

func (l *gormLogger) Error(ctx context.Context, msg string, args ...any) {
	l.log.ErrorContext(ctx, fmt.Sprintf(msg, args...), "component", "gorm")
}

func (l *gormLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	elapsed := time.Since(begin)
	switch {
	case err != nil && !errors.Is(err, gorm.ErrRecordNotFound) && !errors.Is(err, context.Canceled):
		// Every store method returns its error, translated, to a caller
		// that logs it with what it was doing, or answers a request with
		// it (logged there); an unavailable database is that caller's
		// story, retold here without context at every query of every
		// loop, so it is only for DEBUG. Other errors (a wrong query,
		// a constraint) keep their line here, where the SQL is known.
		level := slog.LevelWarn
		if isUnavailable(err) {
			level = slog.LevelDebug
		}
		l.log.Log(ctx, level, "database query failed", "component", "gorm",
			"elapsed", elapsed, "error", err)
	case elapsed > l.slow:
		sqlText, rows := fc()
		l.log.WarnContext(ctx, "slow database query", "component", "gorm",
			"elapsed", elapsed, "rows", rows, "sql", statementOnly(sqlText))
	}
}

// statementOnly keeps the head of a logged statement, up to its first
// WHERE, SET or VALUES: GORM renders argument values inline, and values
// (digests, names) do not belong in logs.
func statementOnly(sqlText string) string {
	cut := len(sqlText)
	for _, word := range []string{" WHERE ", " SET ", " VALUES ", " VALUES("} {
		if i := strings.Index(strings.ToUpper(sqlText), word); i >= 0 && i < cut {
			cut = i
		}
	}
	if cut > 160 {
		cut = 160
	}
	return sqlText[:cut]
}
