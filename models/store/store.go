package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/models"

	"github.com/glebarez/sqlite"
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
	// requestQueries and backgroundQueries count the statements sent
	// (see QueryCount): those of background work apart from the rest.
	requestQueries, backgroundQueries atomic.Int64
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
	log := cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler))
	clock := cmp.Or[models.Clock](cfg.Clock, models.SystemClock{})
	// GORM logs a failed open itself, without context; the caller gets the
	// error and says what failed, so opening logs nothing.
	gormConfig := &gorm.Config{
		Logger:                 logger.Discard,
		SkipDefaultTransaction: true,
		PrepareStmt:            false,
		NowFunc:                func() time.Time { return clock.Now().UTC() },
		// GORM's own ping at open takes no context: a server that does
		// not answer would hold a stop signal back until the URL's
		// connect timeout. Open pings with ctx below instead.
		DisableAutomaticPing: true,
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
		"&_pragma=cache_size(" + fmt.Sprint(sqliteCacheSize) + ")" +
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
