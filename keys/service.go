package keys

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/crownsdev/crowns/models"
)

// Defaults and bounds of Config.
const (
	// MaxCacheTTL bounds how stale a trusted verification result may be: a
	// change made by another process is seen after at most this long
	// (sooner, at the next Sync, while the key-event feed is read).
	MaxCacheTTL          = 5 * time.Second
	DefaultCacheSize     = 100_000
	DefaultFlushInterval = 10 * time.Second
	// DefaultSyncInterval is how often Run reads the key-event feed.
	DefaultSyncInterval = time.Second
	// SyncedCacheTTL is the longest a verification result is trusted while
	// the key-event feed is read: a change recorded in key_events drops
	// it at the next sync; a change made by hand in the database, outside
	// this package, is seen after at most this long.
	SyncedCacheTTL = time.Hour
)

// Config is what a Service is built from.
type Config struct {
	// Secret derives the digest and encryption keys (at least 32 bytes;
	// see LoadOrCreateSecret).
	Secret []byte
	// Clock tells the time of events, cache expiry and last use
	// (default: the system clock).
	Clock models.Clock
	// CacheTTL is how long a verification result is cached; zero means
	// MaxCacheTTL, and longer is clamped to it.
	CacheTTL time.Duration
	// CacheSize bounds the cached verification results (default
	// DefaultCacheSize).
	CacheSize int
	// FlushInterval is how often Run writes last-use times and request
	// counts (default DefaultFlushInterval): what a crash loses.
	FlushInterval time.Duration
	// SyncInterval is how often Run reads the key-event feed (default
	// DefaultSyncInterval; at most half of CacheTTL).
	SyncInterval time.Duration
	// Logger receives transitions and flush failures, never a key or the
	// secret (default: discard).
	Logger *slog.Logger
}

// Service is the developer-key lifecycle over a Store: transitions,
// verification and their bookkeeping. It is safe for concurrent use; build
// one per process with NewService.
type Service struct {
	db    Store
	clock models.Clock
	log   *slog.Logger
	ring  *keyring
	cache *verifyCache
	// lookups joins concurrent lookups of one key (see VerifyAt).
	lookups       singleflight.Group
	usage         *usageLog
	counts        *usageCounts
	flushInterval time.Duration
	syncInterval  time.Duration
	// flushing serialises Flush.
	flushing  sync.Mutex
	listeners listeners
	// feed is the reader of the key-event outbox (see Sync).
	feed eventFeed
}

// NewService builds a Service on db (a *store.Store); cfg's zero fields
// take their defaults.
func NewService(db Store, cfg Config) (*Service, error) {
	if db == nil {
		return nil, fmt.Errorf("keys service: no store")
	}
	ring, err := newKeyring(cfg.Secret)
	if err != nil {
		return nil, fmt.Errorf("keys service: %w", err)
	}
	if min(cfg.CacheTTL, cfg.FlushInterval, cfg.SyncInterval) < 0 || cfg.CacheSize < 0 {
		return nil, errors.New("keys service: CacheTTL, CacheSize, FlushInterval and SyncInterval must not be negative")
	}
	cfg.Clock = cmp.Or[models.Clock](cfg.Clock, models.SystemClock{})
	cfg.CacheTTL = min(cmp.Or(cfg.CacheTTL, MaxCacheTTL), MaxCacheTTL)
	cfg.CacheSize = cmp.Or(cfg.CacheSize, DefaultCacheSize)
	cfg.FlushInterval = cmp.Or(cfg.FlushInterval, DefaultFlushInterval)
	cfg.SyncInterval = min(cmp.Or(cfg.SyncInterval, DefaultSyncInterval), cfg.CacheTTL/2)
	cfg.Logger = cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler))
	return &Service{
		db:            db,
		clock:         cfg.Clock,
		log:           cfg.Logger.With("component", "keys"),
		ring:          ring,
		cache:         newVerifyCache(cfg.CacheSize, cfg.CacheTTL, SyncedCacheTTL),
		usage:         newUsageLog(),
		counts:        newUsageCounts(),
		flushInterval: cfg.FlushInterval,
		syncInterval:  cfg.SyncInterval,
	}, nil
}
