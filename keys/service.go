package keys

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/crownsdev/crowns/models"
)

// Defaults and bounds of Config.
const (
	// MaxCacheTTL is the longest a verification result is trusted without
	// asking the database: a change made by another process is seen after
	// at most this long.
	MaxCacheTTL          = 5 * time.Second
	DefaultCacheSize     = 100_000
	DefaultFlushInterval = 30 * time.Second
)

// Config is what a Service is built from.
type Config struct {
	// Secret derives the digest and encryption keys (at least 32 bytes;
	// see LoadOrCreateSecret).
	Secret []byte
	// Clock tells the time of events, cache expiry and last use
	// (default: the system clock).
	Clock models.Clock
	// CacheTTL is how long a verification result is cached; zero or
	// negative means MaxCacheTTL, and longer is clamped to it.
	CacheTTL time.Duration
	// CacheSize bounds the cached verification results (default
	// DefaultCacheSize).
	CacheSize int
	// FlushInterval is how often Run writes last-use times (default
	// DefaultFlushInterval).
	FlushInterval time.Duration
	// Logger receives transitions and flush failures, never a key or the
	// secret (default: discard).
	Logger *slog.Logger
}

// Service is the developer-key lifecycle over a Store: transitions,
// verification and their bookkeeping. It is safe for concurrent use; build
// one per process with NewService.
type Service struct {
	store         *models.Store
	clock         models.Clock
	log           *slog.Logger
	ring          *keyring
	cache         *verifyCache
	usage         *usageLog
	flushInterval time.Duration
	// flushing serialises Flush.
	flushing  sync.Mutex
	listeners listeners
}

// NewService builds a Service on store; cfg's zero fields take their
// defaults.
func NewService(store *models.Store, cfg Config) (*Service, error) {
	if store == nil {
		return nil, fmt.Errorf("keys service: no store")
	}
	ring, err := newKeyring(cfg.Secret)
	if err != nil {
		return nil, fmt.Errorf("keys service: %w", err)
	}
	if cfg.Clock == nil {
		cfg.Clock = models.SystemClock{}
	}
	if cfg.CacheTTL <= 0 || cfg.CacheTTL > MaxCacheTTL {
		cfg.CacheTTL = MaxCacheTTL
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = DefaultCacheSize
	}
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = DefaultFlushInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{
		store:         store,
		clock:         cfg.Clock,
		log:           cfg.Logger.With("component", "keys"),
		ring:          ring,
		cache:         newVerifyCache(cfg.CacheSize, cfg.CacheTTL),
		usage:         newUsageLog(),
		flushInterval: cfg.FlushInterval,
	}, nil
}
