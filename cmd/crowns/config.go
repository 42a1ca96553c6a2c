package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/bot"
	"github.com/crownsdev/crowns/scheduler"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// config is every setting of the crowns binary, read from CROWNS_*
// environment variables with defaults, validated once at start-up.
//
// Defaults are filled one way: here, as each variable is read. A setting
// that a package also takes on its own has that package's exported
// Default constant as its default (upstream.DefaultTimeout,
// scheduler.DefaultTournamentRefreshInterval...), so each default value
// is written once; a package treats a zero field as that same constant
// only for callers that do not go through this reader (tests, embedding).
type config struct {
	Addr string
	// MetricsAddr is where /metrics is served, never on Addr; "off" serves
	// none.
	MetricsAddr string
	DataDir     string
	DatabaseURL string
	// Secret is CROWNS_SECRET, or the content of the file CROWNS_SECRET_FILE
	// names (SecretFile).
	Secret        string
	SecretFile    string
	UpstreamURL   string
	UpstreamToken string
	// UpstreamTimeout bounds one upstream call, retries included.
	UpstreamTimeout time.Duration
	// UpstreamConcurrency bounds upstream calls in flight.
	UpstreamConcurrency int
	TrackAddress        string
	SupportInfo         string
	// LeakReportKeysFile holds the public keys that sign leaked-key
	// reports, in GitHub's published JSON; LeakReportKeysJSON is that JSON
	// itself (CROWNS_LEAK_REPORT_KEYS), for a deployment that passes
	// configuration in the environment only: one or the other.
	// LeakReportKeys are their keys, read and checked with the rest of the
	// configuration when serving.
	LeakReportKeysFile string
	LeakReportKeysJSON string
	LeakReportKeys     api.LeakReportKeys
	RateLimitPerSecond float64
	RateLimitBurst     int
	// KeyLookupsPerAddress and KeyLookupsPerSecond bound the database
	// lookups a second of keys not in memory, per client address and in
	// all.
	KeyLookupsPerAddress float64
	KeyLookupsPerSecond  float64
	// TrustedProxies are the proxies in front of the API, whose
	// X-Forwarded-For names the client (see api.Config.TrustedProxies).
	TrustedProxies []netip.Prefix
	// GameCallsPerKey bounds the game-API calls a second of one key.
	GameCallsPerKey float64
	CacheTTL        time.Duration
	// HistoryCacheTTL is the backstop lifetime of cached history answers
	// (they are dropped at once when their clan changes).
	HistoryCacheTTL time.Duration
	// CacheBytes bounds the memory of the response cache.
	CacheBytes           int64
	Roles                roles
	Tournaments          bool
	TournamentRefresh    scheduler.TournamentRefresherConfig
	HistoryRetentionDays int
	DiscordToken         string
	DiscordGuildID       string
	DiscordKeyChannelID  string
	DiscordLogChannelID  string
	DiscordPrefix        string
	LogLevel             string
	LogFormat            string
	// AccessLog writes a log line per request.
	AccessLog bool
	// GCPercent is the Go collector's heap growth target (GOGC), applied
	// unless GOGC itself is set.
	GCPercent int
	// MemoryLimit is the Go runtime's soft memory limit (GOMEMLIMIT),
	// applied unless GOMEMLIMIT itself is set.
	MemoryLimit     int64
	ShutdownTimeout time.Duration

	// SnapshotRatePerSecond and SnapshotConcurrency bound this process's
	// upstream fetches for clan snapshots (each replica has its own).
	SnapshotRatePerSecond float64
	SnapshotConcurrency   int
}

// roles says which roles this process runs.
type roles struct {
	API, Bot, Scheduler bool
}

func (r roles) String() string {
	var names []string
	if r.API {
		names = append(names, "api")
	}
	if r.Bot {
		names = append(names, "bot")
	}
	if r.Scheduler {
		names = append(names, "scheduler")
	}
	return strings.Join(names, ",")
}

// Defaults of the configuration, as documented in the README.
const (
	defaultAddr = ":8080"
	// defaultMetricsAddr is loopback, on a port no common neighbour takes
	// by default (Prometheus itself listens on 9090).
	defaultMetricsAddr  = "127.0.0.1:9181"
	defaultDataDir      = "./crowns-data"
	defaultUpstreamURL  = "https://api.clashroyale.com/v1"
	defaultTrackAddress = sandbox.DefaultTrackAddress
	// defaultGCPercent: most of a busy process's heap is long-lived caches
	// (rendered answers, key verdicts, the player dictionary), so a heap
	// goal of 1.5 times the live heap instead of Go's 2 keeps resident
	// memory about a quarter lower for a little more collector work.
	defaultGCPercent = 50
	// defaultCacheMB is the memory budget of cached answers. 40 MiB hold
	// the compressed forms of every hot answer of the full-size load of
	// docs/performance.md (1,000 players' battles and 1,000 clans'
	// histories, about 15 MiB each) with room for the plain forms asked
	// most, and keep the whole process within 150 MB resident.
	defaultCacheMB = 40
	// memoryLimitBesideCacheMB is what the Go runtime's soft memory limit
	// leaves beside the cache budget when CROWNS_MEMORY_LIMIT_MB is not
	// set: the rest of the live heap (key verdicts, the player dictionary,
	// usage counts: about 20 MiB at 10,000 keys) and the collector's room.
	// Near the limit the collector runs harder rather than let the heap
	// grow past it, and gives freed memory back to the system; derived
	// from the cache budget, the limit grows with it.
	memoryLimitBesideCacheMB = 64
	defaultSupportInfo       = "The API reference is this service's /docs page; ask in the developer-key channel of the community server for help."
)

// maxRateLimitPerSecond bounds CROWNS_RATE_LIMIT_PER_SECOND as
// CROWNS_RATE_LIMIT_BURST is bounded: a million requests a second of one
// key is past any server, and every keyed answer carries the rate in
// x-ratelimit-limit, where 1e308 was 309 digits.
const maxRateLimitPerSecond = 1_000_000

// loadConfig reads the configuration from getenv and validates it; every
// problem found is reported in one error, a line each.
func loadConfig(getenv func(string) string) (config, error) {
	return readConfig(getenv, false)
}

// loadServeConfig is loadConfig for crowns serve, which also reads and
// checks the files only the server uses (CROWNS_LEAK_REPORT_KEYS_FILE),
// reporting their problems with the rest; the operator commands, which
// may run where those files are not mounted, do not read them.
func loadServeConfig(getenv func(string) string) (config, error) {
	return readConfig(getenv, true)
}

// readConfig is loadConfig, reading the server's own files when serving.
func readConfig(getenv func(string) string, serving bool) (config, error) {
	r := envReader{getenv: getenv}
	cfg := config{
		Addr:                 r.str("CROWNS_ADDR", defaultAddr),
		MetricsAddr:          r.str("CROWNS_METRICS_ADDR", defaultMetricsAddr),
		DataDir:              r.str("CROWNS_DATA_DIR", defaultDataDir),
		DatabaseURL:          r.str("CROWNS_DATABASE_URL", ""),
		SecretFile:           r.str("CROWNS_SECRET_FILE", ""),
		UpstreamURL:          strings.TrimRight(r.str("CROWNS_UPSTREAM_URL", defaultUpstreamURL), "/"),
		UpstreamToken:        r.str("CROWNS_UPSTREAM_TOKEN", ""),
		UpstreamTimeout:      r.duration("CROWNS_UPSTREAM_TIMEOUT", upstream.DefaultTimeout),
		UpstreamConcurrency:  r.integer("CROWNS_UPSTREAM_CONCURRENCY", upstream.DefaultConcurrency, 1, 1024),
		TrackAddress:         r.str("CROWNS_TRACK_ADDRESS", defaultTrackAddress),
		SupportInfo:          r.str("CROWNS_SUPPORT_INFO", defaultSupportInfo),
		LeakReportKeysFile:   r.str("CROWNS_LEAK_REPORT_KEYS_FILE", ""),
		LeakReportKeysJSON:   r.str("CROWNS_LEAK_REPORT_KEYS", ""),
		RateLimitPerSecond:   r.float("CROWNS_RATE_LIMIT_PER_SECOND", 10),
		RateLimitBurst:       r.integer("CROWNS_RATE_LIMIT_BURST", 20, 1, 1_000_000),
		KeyLookupsPerAddress: r.float("CROWNS_KEY_LOOKUPS_PER_ADDRESS", api.DefaultKeyLookupsPerAddress),
		KeyLookupsPerSecond:  r.float("CROWNS_KEY_LOOKUPS_PER_SECOND", api.DefaultKeyLookupsPerSecond),
		TrustedProxies:       r.prefixes("CROWNS_TRUSTED_PROXIES"),
		GameCallsPerKey:      r.float("CROWNS_GAME_CALLS_PER_KEY", api.DefaultGameCallsPerKey),
		CacheTTL:             r.duration("CROWNS_CACHE_TTL", 3*time.Minute),
		HistoryCacheTTL:      r.duration("CROWNS_HISTORY_CACHE_TTL", time.Minute),
		CacheBytes:           int64(r.integer("CROWNS_CACHE_MB", defaultCacheMB, 1, 1<<20)) << 20,
		Roles:                r.roles("CROWNS_ROLES", "api,bot,scheduler"),
		Tournaments:          r.onOff("CROWNS_TOURNAMENTS", false),
		HistoryRetentionDays: r.integer("CROWNS_HISTORY_RETENTION_DAYS", scheduler.DefaultHistoryRetentionDays, 1, 100_000),
		DiscordToken:         r.str("CROWNS_DISCORD_TOKEN", ""),
		DiscordGuildID:       r.discordID("CROWNS_DISCORD_GUILD_ID"),
		DiscordKeyChannelID:  r.discordID("CROWNS_DISCORD_KEY_CHANNEL_ID"),
		DiscordLogChannelID:  r.discordID("CROWNS_DISCORD_LOG_CHANNEL_ID"),
		DiscordPrefix:        r.str("CROWNS_DISCORD_PREFIX", bot.DefaultPrefix),
		LogLevel:             r.logLevel(),
		LogFormat:            r.logFormat(),
		AccessLog:            r.onOff("CROWNS_ACCESS_LOG", true),
		GCPercent:            r.integer("CROWNS_GC_PERCENT", defaultGCPercent, 10, 1000),
		ShutdownTimeout:      r.duration("CROWNS_SHUTDOWN_TIMEOUT", 20*time.Second),

		SnapshotRatePerSecond: r.float("CROWNS_SNAPSHOT_RATE_PER_SECOND", scheduler.DefaultSnapshotRatePerSecond),
		SnapshotConcurrency:   r.integer("CROWNS_SNAPSHOT_CONCURRENCY", scheduler.DefaultSnapshotConcurrency, 1, 256),
	}
	// A job's fetch is the upstream call, bounded by CROWNS_UPSTREAM_TIMEOUT;
	// its lease must outlast it (see scheduler.Config.UpstreamTimeout).
	lease := min(scheduler.DefaultLease, scheduler.DefaultTournamentLease)
	fetchFits := cfg.UpstreamTimeout < lease
	r.check(fetchFits, fmt.Sprintf("CROWNS_UPSTREAM_TIMEOUT must be shorter than %s, the lease of a snapshot job or tournament refresh", lease))
	if !fetchFits {
		cfg.UpstreamTimeout = upstream.DefaultTimeout // reported above, once
	}
	cfg.TournamentRefresh = r.tournamentRefresh(cfg.UpstreamTimeout)
	cfg.MemoryLimit = int64(r.integer("CROWNS_MEMORY_LIMIT_MB", int(cfg.CacheBytes>>20)+memoryLimitBesideCacheMB, 32, 1<<20)) << 20
	secret, secretRefused := r.secret("CROWNS_SECRET", cfg.SecretFile)
	cfg.Secret = secret
	switch {
	case cfg.LeakReportKeysFile != "" && cfg.LeakReportKeysJSON != "":
		r.fail("set CROWNS_LEAK_REPORT_KEYS or CROWNS_LEAK_REPORT_KEYS_FILE, not both")
	case !serving:
	case cfg.LeakReportKeysFile != "":
		leakKeys, err := api.LoadLeakReportKeys(cfg.LeakReportKeysFile)
		r.check(err == nil, fmt.Sprintf("CROWNS_LEAK_REPORT_KEYS_FILE: %v", err))
		cfg.LeakReportKeys = leakKeys
	case cfg.LeakReportKeysJSON != "":
		leakKeys, err := api.ParseLeakReportKeys([]byte(cfg.LeakReportKeysJSON))
		r.check(err == nil, fmt.Sprintf("CROWNS_LEAK_REPORT_KEYS: %v", err))
		cfg.LeakReportKeys = leakKeys
	}
	r.check(cfg.MetricsAddr == metricsOff || !sameListenAddress(cfg.MetricsAddr, cfg.Addr), "CROWNS_METRICS_ADDR must differ from CROWNS_ADDR: metrics are never served on the public API address")
	r.check(cfg.MemoryLimit >= cfg.CacheBytes+32<<20, "CROWNS_MEMORY_LIMIT_MB must leave at least 32 MiB beside CROWNS_CACHE_MB")
	r.check(cfg.RateLimitPerSecond > 0 && cfg.RateLimitPerSecond <= maxRateLimitPerSecond,
		fmt.Sprintf("CROWNS_RATE_LIMIT_PER_SECOND must be greater than 0 and at most %g", float64(maxRateLimitPerSecond)))
	// The budgets are buckets of at least one token: one must come back
	// within 100 years, as the key's rate limit must fill, or the limiter
	// cannot hold the interval between tokens.
	for _, budget := range []struct {
		name string
		rate float64
	}{
		{"CROWNS_KEY_LOOKUPS_PER_ADDRESS", cfg.KeyLookupsPerAddress},
		{"CROWNS_KEY_LOOKUPS_PER_SECOND", cfg.KeyLookupsPerSecond},
		{"CROWNS_GAME_CALLS_PER_KEY", cfg.GameCallsPerKey},
	} {
		r.check(budget.rate > 0, budget.name+" must be greater than 0")
		r.check(budget.rate <= 0 || api.RateFillsInTime(budget.rate, 1),
			fmt.Sprintf("%s must be greater than 0 and give one at least once in 100 years (%.2g a second), got %g",
				budget.name, 1/api.MaxRateFill.Seconds(), budget.rate))
	}
	r.check(cfg.RateLimitPerSecond <= 0 || api.RateFillsInTime(cfg.RateLimitPerSecond, cfg.RateLimitBurst),
		"CROWNS_RATE_LIMIT_BURST / CROWNS_RATE_LIMIT_PER_SECOND (the seconds an empty bucket takes to fill) must be at most 100 years")
	r.check(cfg.SnapshotRatePerSecond > 0 && cfg.SnapshotRatePerSecond <= 1000, "CROWNS_SNAPSHOT_RATE_PER_SECOND must be greater than 0 and at most 1000")
	r.check(cfg.SnapshotConcurrency <= cfg.UpstreamConcurrency, "CROWNS_SNAPSHOT_CONCURRENCY must not exceed CROWNS_UPSTREAM_CONCURRENCY")
	if cfg.SnapshotRatePerSecond > 0 && cfg.UpstreamTimeout > 0 && cfg.UpstreamTimeout < scheduler.DefaultLease {
		r.check(scheduler.SnapshotWaitFits(cfg.SnapshotConcurrency, cfg.SnapshotRatePerSecond, scheduler.DefaultLease, cfg.UpstreamTimeout),
			fmt.Sprintf("CROWNS_SNAPSHOT_CONCURRENCY / CROWNS_SNAPSHOT_RATE_PER_SECOND must be at most %s with CROWNS_UPSTREAM_TIMEOUT %s "+
				"(a claimed snapshot job waits up to twice that for its turn, and is fetched within its lease of %s)",
				scheduler.MaxSnapshotWait(scheduler.DefaultLease, cfg.UpstreamTimeout), cfg.UpstreamTimeout, scheduler.DefaultLease))
	}
	r.check(cfg.CacheTTL >= 0, "CROWNS_CACHE_TTL must not be negative")
	r.check(cfg.HistoryCacheTTL >= 0, "CROWNS_HISTORY_CACHE_TTL must not be negative")
	r.check(cfg.UpstreamTimeout > 0, "CROWNS_UPSTREAM_TIMEOUT must be greater than 0")
	r.check(cfg.ShutdownTimeout > 0, "CROWNS_SHUTDOWN_TIMEOUT must be greater than 0")
	r.check(strings.TrimSpace(cfg.TrackAddress) != "", "CROWNS_TRACK_ADDRESS must not be empty")
	r.check(validListenAddr(cfg.Addr), fmt.Sprintf("CROWNS_ADDR must be host:port with a port from 0 to 65535 (such as :8080 or 127.0.0.1:8080), got %q", cfg.Addr))
	r.check(cfg.MetricsAddr == metricsOff || validListenAddr(cfg.MetricsAddr),
		fmt.Sprintf("CROWNS_METRICS_ADDR must be host:port with a port from 0 to 65535 (such as %s), or %s, got %q", defaultMetricsAddr, metricsOff, cfg.MetricsAddr))
	if u, err := url.Parse(cfg.UpstreamURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.fail("CROWNS_UPSTREAM_URL must be an http(s) URL such as %s", defaultUpstreamURL)
	} else if u.User != nil || strings.ContainsAny(cfg.UpstreamURL, "?#") {
		// Each call's path is added at the end, and the token is sent in
		// its own header: a query, a fragment or a user would fail every
		// call, or never be sent.
		r.fail("CROWNS_UPSTREAM_URL must be the game API's base alone, such as %s: no user or password (CROWNS_UPSTREAM_TOKEN is the credential), query or fragment", defaultUpstreamURL)
	} else if tokenInClear(u, cfg.UpstreamToken) {
		r.fail("CROWNS_UPSTREAM_URL is plain http:// to %s: CROWNS_UPSTREAM_TOKEN would cross the network unencrypted; use https:// (plain http is for loopback hosts only)", u.Hostname())
	}
	if tokens := upstream.Tokens(cfg.UpstreamToken); cfg.UpstreamToken != "" && len(tokens) == 0 {
		r.fail("CROWNS_UPSTREAM_TOKEN lists no token, only commas and blanks (leave it unset for the in-process sandbox)")
	} else if slices.ContainsFunc(tokens, hasControlCharacter) {
		r.fail("CROWNS_UPSTREAM_TOKEN holds a control character (a line break?): a token is sent in an HTTP header, which cannot carry one")
	}
	if cfg.DatabaseURL != "" && !strings.HasPrefix(cfg.DatabaseURL, "postgres://") && !strings.HasPrefix(cfg.DatabaseURL, "postgresql://") {
		r.fail("CROWNS_DATABASE_URL must start with postgres:// (leave it unset for the embedded SQLite file)")
	}
	if cfg.DatabaseURL == "" {
		problem := dataDirProblem(cfg.DataDir)
		r.check(problem == "", problem)
	}
	// A secret refused as it was read is one problem: neither missing nor
	// malformed besides.
	if cfg.DatabaseURL != "" && cfg.Secret == "" && !secretRefused {
		r.fail("%s", secretRequiredProblem(cfg.DataDir))
	}
	if cfg.Secret != "" && !secretRefused {
		if raw, err := base64.StdEncoding.DecodeString(cfg.Secret); err != nil || len(raw) < 32 {
			r.fail("%s must be base64 of at least 32 bytes (try: openssl rand -base64 32)", secretName(cfg))
		}
	}
	// The bot runs only with a token: serving the bot alone without one
	// would run nothing. The operator commands run no role.
	r.check(!serving || !cfg.Roles.Bot || cfg.Roles.API || cfg.Roles.Scheduler || cfg.DiscordToken != "",
		"CROWNS_ROLES selects the bot alone, which runs only with CROWNS_DISCORD_TOKEN: without it this process would run no role")
	if cfg.DiscordToken != "" && cfg.Roles.Bot {
		r.check(cfg.DiscordGuildID != "", "CROWNS_DISCORD_GUILD_ID is required when CROWNS_DISCORD_TOKEN is set")
		r.check(cfg.DiscordKeyChannelID != "", "CROWNS_DISCORD_KEY_CHANNEL_ID is required when CROWNS_DISCORD_TOKEN is set")
	}
	r.check(strings.TrimSpace(cfg.DiscordPrefix) != "", "CROWNS_DISCORD_PREFIX must not be empty")
	prefixErr := bot.CheckPrefix(strings.TrimSpace(cfg.DiscordPrefix))
	r.check(prefixErr == nil, fmt.Sprint("CROWNS_DISCORD_PREFIX ", prefixErr))
	if len(r.problems) > 0 {
		return config{}, errors.New(strings.Join(r.problems, "\n"))
	}
	return cfg, nil
}

// dataDirProblem says why dir cannot hold the SQLite file and the
// generated secret (CROWNS_DATA_DIR), or "" when it can: a directory, or
// a path not there yet, which is created at start (but not through a
// symbolic link to nothing).
func dataDirProblem(dir string) string {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A link to nothing (a disk not mounted) cannot be created.
		if target, err := os.Readlink(dir); err == nil {
			return fmt.Sprintf("CROWNS_DATA_DIR %q is a symbolic link to %q, which does not exist", dir, target)
		}
		return ""
	case err != nil:
		return fmt.Sprintf("CROWNS_DATA_DIR %q cannot be used: %v", dir, err)
	case !info.IsDir():
		return fmt.Sprintf("CROWNS_DATA_DIR %q is not a directory: it holds the SQLite file and the generated secret", dir)
	}
	return ""
}

// embedded reports whether this is the zero-setup mode: the SQLite file and
// the in-process sandbox.
func (c config) embedded() bool { return c.DatabaseURL == "" && c.UpstreamToken == "" }

// usesSandbox reports whether game data comes from the in-process sandbox.
func (c config) usesSandbox() bool { return c.UpstreamToken == "" }

// botEnabled reports whether this process runs the Discord bot.
func (c config) botEnabled() bool { return c.Roles.Bot && c.DiscordToken != "" }

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// mask hides a secret, keeping only whether it is set and its length.
func mask(secret string) string {
	if secret == "" {
		return "(unset)"
	}
	return fmt.Sprintf("(set, %d chars)", len(secret))
}
