package api

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/api/internal/accesslog"
	"github.com/crownsdev/crowns/internal/outage"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
)

// KeyVerifier checks a developer key; its errors are models.ErrUnknownKey,
// ErrKeyDisabled, ErrKeyBlacklisted or an unavailable database.
type KeyVerifier interface {
	// VerifyCached verifies raw at now from memory, or answers
	// keys.ErrNotCached (keys.ErrVerdictExpired for the recheck of a key
	// that authenticated before): then VerifyAt is asked, with the
	// request's context (made only then).
	VerifyCached(raw string, now time.Time) (keys.Identity, error)
	// VerifyAt verifies raw at now, the request's time on the clock the
	// verifier would read.
	VerifyAt(ctx context.Context, raw string, now time.Time) (keys.Identity, error)
}

// GameData is the game upstream as the API uses it. SearchClans returns a
// models.ErrInvalid when the game API refuses the search (its 400).
type GameData interface {
	SearchClans(ctx context.Context, q legacy.ClanSearchQuery) (legacy.ClanSearchPage, error)
	PlayerBattles(ctx context.Context, tag string) ([]legacy.Battle, error)
}

// ClanTracker starts tracking a clan on a developer key's request: nil on
// success (also when already tracked), models.ErrNotFound for a clan the
// upstream does not know, a models.AddressMissingError when the clan
// description lacks the tracking address, an unavailable error when the
// upstream or the database cannot answer.
type ClanTracker interface {
	TrackClan(ctx context.Context, tag string, keyID int64) error
}

// ClanHistoryReader reads stored clan history and tracking status.
// FingerprintedClanHistory returns the snapshots of one schedule with
// slots in [from, to], or models.ErrNotTracked /
// models.ErrWeeklyNotEnabled, with the fingerprint of what it read (also
// with those refusals). ClanHistoryFingerprint is that fingerprint as the
// database gives it now, in one cheap query: equal, the answer read then
// is the answer now. SubscribeClanChanges announces every change of a
// clan's history answers, of this process at once and of others as soon
// as they are heard of; the API drops its cached answers of that clan.
type ClanHistoryReader interface {
	FingerprintedClanHistory(ctx context.Context, tag string, kind models.SnapshotKind, from, to time.Time) ([]models.HistorySnapshot, models.HistoryFingerprint, error)
	ClanHistoryFingerprint(ctx context.Context, tag string, kind models.SnapshotKind, from, to time.Time) (models.HistoryFingerprint, error)
	TrackingStatus(ctx context.Context, tag string) (models.ClanTracking, error)
	SubscribeClanChanges(fn func(models.ClanChange)) (unsubscribe func())
}

// HealthChecker tells whether the database answers.
type HealthChecker interface {
	Ping(ctx context.Context) error
}

// DefaultDatabaseTimeout is the longest a request waits on the database
// before answering 503: the contract's 5 s.
const DefaultDatabaseTimeout = models.MaxDatabaseWait

// DefaultRequestTimeout bounds the work of one request when
// Config.RequestTimeout is zero.
const DefaultRequestTimeout = 15 * time.Second

// Config tunes the API.
type Config struct {
	// SupportInfo is the "info" text of every error body.
	SupportInfo string
	// RateLimitPerSecond and RateLimitBurst size each key's token bucket.
	RateLimitPerSecond float64
	RateLimitBurst     int
	// CacheTTL is how long upstream-backed answers are served from memory;
	// zero disables their cache.
	CacheTTL time.Duration
	// HistoryCacheTTL bounds how long a rendered history answer is served
	// from memory: it is dropped at once when its clan changes in this
	// process, or when another process's change is heard of; the TTL is
	// the backstop for changes no one announces (a row edited by hand).
	// Zero disables the history cache.
	HistoryCacheTTL time.Duration
	// CacheBytes bounds the memory of cached answers, upstream-backed and
	// history together.
	CacheBytes int64
	// Tournaments serves the tournament routes; off, they answer 501.
	Tournaments bool
	// RequestTimeout bounds the work of one request (default
	// DefaultRequestTimeout).
	RequestTimeout time.Duration
	// DatabaseTimeout bounds the database work of one request (default
	// and at most DefaultDatabaseTimeout, at most RequestTimeout): past it
	// the request answers 503.
	DatabaseTimeout time.Duration
	// KeyLookupsPerAddress bounds the database lookups a second of keys the
	// verification cache does not know that one client address may cause
	// (with a burst of ten seconds' worth); KeyLookupsPerSecond those of all
	// clients together (five seconds' worth). Zero takes the Default of
	// each.
	KeyLookupsPerAddress float64
	KeyLookupsPerSecond  float64
	// GameCallsPerKey bounds the game-API calls a second one key may
	// cause, with a burst of a minute's worth (zero:
	// DefaultGameCallsPerKey); past it, that key's requests that the cache
	// cannot answer are answered 429.
	GameCallsPerKey float64
	// MaxConnsPerAddress bounds the connections one client address holds
	// open at once (zero: DefaultMaxConnsPerAddress); one more is answered
	// 429 and closed.
	MaxConnsPerAddress int
	// DrainGrace is how long Shutdown lets open connections end on their
	// own, each told to close by its next answer, before it closes those
	// still idle (zero: DefaultDrainGrace).
	DrainGrace time.Duration
	// TrustedProxies are the addresses of the proxies in front of the API
	// (a load balancer): their connections hold no place in the
	// per-address connection limit, and the client address of their
	// requests, for the per-address key-lookup budget, is the one their
	// X-Forwarded-For names. None by default: the header is then ignored.
	TrustedProxies []netip.Prefix
	// AccessLog (CROWNS_ACCESS_LOG) writes an access-log line per request;
	// without it, errors and 5xx answers are still logged.
	AccessLog bool
	// AccessLines, when set, takes the INFO access lines, a whole line per
	// Write from concurrent callers, formatted as Logger's handler would
	// format them if it has no attributes of its own (LogFormat "json":
	// slog's JSON handler with durations as text; otherwise its text
	// handler) by a writer that costs a fraction of a slog record (see
	// api/internal/accesslog). WARN lines (5xx answers), lines of sampled
	// refusals and lines with strings slog would quote still go through
	// Logger, as every line does when AccessLines is unset.
	AccessLines io.Writer
	// LogFormat (CROWNS_LOG_FORMAT) is "json" or "text" (also "").
	LogFormat string
	// Metrics, when set, is where the request metrics are registered
	// (crowns_http_requests_total, crowns_http_request_duration_seconds);
	// nil records none.
	Metrics prometheus.Registerer
	// LeakReportKeys verify the signatures of leaked-key reports (POST
	// /security/leaked-keys); without keys every report answers 401.
	LeakReportKeys LeakReportKeys
	// Clock tells the time (nil: the system clock); Logger receives the
	// server's logs (nil: discarded).
	Clock  models.Clock
	Logger *slog.Logger
}

// Dependencies are the parts of other roles the API calls.
type Dependencies struct {
	// Keys verifies the key of each keyed request.
	Keys KeyVerifier
	// Game answers the routes backed by the game API.
	Game GameData
	// Health tells /readyz whether the database answers.
	Health HealthChecker
	// Tracker and History serve clan tracking and history.
	Tracker ClanTracker
	History ClanHistoryReader
	// TournamentSource and TournamentStore are required only when
	// Config.Tournaments is on.
	TournamentSource TournamentSource
	TournamentStore  TournamentStore
	// Usage, when set, counts every authenticated request for its key;
	// UsageReports, when set, serves GET /auth/stats (without it the
	// route does not exist).
	Usage        UsageCounter
	UsageReports UsageReports
	// Leaks revokes the keys of signed leak reports; nil refuses every
	// report (401).
	Leaks LeakRevoker
}

// Server is the Fiber application with its middleware state.
type Server struct {
	cfg   Config
	deps  Dependencies
	log   *slog.Logger
	clock models.Clock
	// systemClock tells that clock is the system clock (see requestNow).
	systemClock bool
	app         *fiber.App
	limiter     *rateLimiter
	// lookups bounds the database lookups of uncached keys.
	lookups *lookupBudget
	// gameCalls is each key's budget of game-API calls.
	gameCalls *rateLimiter
	// largeBodies bounds the memory of leak reports' bodies being read.
	largeBodies *largeBodies
	// refusals samples the access lines of refused requests.
	refusals *refusalSampler
	// accessLog writes the INFO access lines; nil without
	// Config.AccessLines.
	accessLog *accesslog.Writer
	cache     *responseCache
	// inflaters serve answers kept compressed only to identity clients.
	inflaters  inflaters
	states     requestStates
	requestIDs *requestIDs
	// rateHeaders are the rate-limit header values that never change.
	rateHeaders rateHeaders
	// replicaID names this process among the replicas (see
	// ShareRateLimit).
	replicaID string
	// headers are the canonical names of the headers every answer sets.
	headers headerNames
	// errorBodies are the rendered bodies of the fixed error answers.
	errorBodies map[errorKey][]byte
	// docs are the OpenAPI document and the page that renders it.
	docs documentation
	// unsubscribe ends the subscription to clan changes.
	unsubscribe func()
	// metrics records every answered request; nil without Config.Metrics.
	metrics *requestMetrics
	// connections bounds the connections of each client address (see
	// Serve).
	connections *connectionLimit
	// tournamentSaves stores again the looked-up tournaments whose write
	// failed; nil while tournaments are off.
	tournamentSaves *tournamentSaves
	// draining is set when Shutdown begins: every answer then says
	// Connection: close (see closeWhileDraining).
	draining atomic.Bool
	// requests is the parent of every request's context (see
	// requestCtx); cutRequests ends it, once Shutdown no longer waits for
	// the requests still running. running counts the requests whose
	// handler has not returned.
	requests    context.Context
	cutRequests context.CancelFunc
	running     atomic.Int64
	// serving guards listener, the one Serve was given, and stopped, set
	// by Shutdown (see Serve).
	serving  sync.Mutex
	listener net.Listener
	stopped  bool
}

// New builds the API server; it does not listen yet.
func New(cfg Config, deps Dependencies) (*Server, error) {
	if deps.Keys == nil || deps.Game == nil || deps.Health == nil || deps.Tracker == nil || deps.History == nil {
		return nil, errors.New("api: Keys, Game, Health, Tracker and History dependencies are required")
	}
	if cfg.Tournaments && (deps.TournamentSource == nil || deps.TournamentStore == nil) {
		return nil, errors.New("api: TournamentSource and TournamentStore are required when tournaments are on")
	}
	if cfg.RateLimitPerSecond <= 0 || cfg.RateLimitBurst <= 0 {
		return nil, errors.New("api: rate limit must be positive")
	}
	if !RateFillsInTime(cfg.RateLimitPerSecond, cfg.RateLimitBurst) {
		return nil, errors.New("api: an empty rate-limit bucket must fill (burst / rate) within 100 years")
	}
	if cfg.RequestTimeout < 0 || cfg.DatabaseTimeout < 0 {
		return nil, errors.New("api: RequestTimeout and DatabaseTimeout must not be negative")
	}
	cfg.RequestTimeout = cmp.Or(cfg.RequestTimeout, DefaultRequestTimeout)
	cfg.DatabaseTimeout = min(cmp.Or(cfg.DatabaseTimeout, DefaultDatabaseTimeout), DefaultDatabaseTimeout, cfg.RequestTimeout)
	cfg.KeyLookupsPerAddress = cmp.Or(cfg.KeyLookupsPerAddress, DefaultKeyLookupsPerAddress)
	cfg.KeyLookupsPerSecond = cmp.Or(cfg.KeyLookupsPerSecond, DefaultKeyLookupsPerSecond)
	cfg.GameCallsPerKey = cmp.Or(cfg.GameCallsPerKey, DefaultGameCallsPerKey)
	for _, budget := range []struct {
		name string
		rate float64
	}{
		{"KeyLookupsPerAddress", cfg.KeyLookupsPerAddress},
		{"KeyLookupsPerSecond", cfg.KeyLookupsPerSecond},
		{"GameCallsPerKey", cfg.GameCallsPerKey},
	} {
		// A budget's bucket holds at least one token (burstOf).
		if budget.rate <= 0 || !RateFillsInTime(budget.rate, 1) {
			return nil, fmt.Errorf("api: %s must be positive and give one at least once in 100 years", budget.name)
		}
	}
	cfg.MaxConnsPerAddress = cmp.Or(cfg.MaxConnsPerAddress, DefaultMaxConnsPerAddress)
	cfg.DrainGrace = cmp.Or(cfg.DrainGrace, DefaultDrainGrace)
	cfg.Clock = cmp.Or[models.Clock](cfg.Clock, models.SystemClock{})
	cfg.Logger = cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler))
	s := &Server{
		cfg:         cfg,
		deps:        deps,
		log:         cfg.Logger,
		clock:       cfg.Clock,
		limiter:     newRateLimiter(cfg.RateLimitPerSecond, cfg.RateLimitBurst),
		lookups:     newLookupBudget(cfg),
		gameCalls:   newRateLimiter(cfg.GameCallsPerKey, burstOf(cfg.GameCallsPerKey, gameCallBurst)),
		refusals:    newRefusalSampler(),
		cache:       newResponseCache(cfg.CacheTTL, cfg.CacheBytes, cfg.Clock),
		requestIDs:  newRequestIDs(),
		rateHeaders: newRateHeaders(cfg.RateLimitPerSecond),
		headers:     newHeaderNames(),
		replicaID:   newReplicaID(),
	}
	_, s.systemClock = cfg.Clock.(models.SystemClock)
	s.requests, s.cutRequests = context.WithCancel(context.Background())
	s.cache.requests = s.requests
	if cfg.AccessLines != nil {
		s.accessLog = accesslog.New(cfg.AccessLines, cfg.LogFormat == "json")
	}
	var err error
	if s.metrics, err = newRequestMetrics(cfg.Metrics); err != nil {
		return nil, fmt.Errorf("api: request metrics: %w", err)
	}
	if s.docs, err = newDocumentation(); err != nil {
		return nil, err
	}
	s.errorBodies = s.renderFixedErrors()
	fiberCfg := fiberConfig(s.handleError)
	s.app = fiber.New(fiberCfg)
	server := s.app.Server()
	server.Handler = s.closeWhileDraining(knownMethodsOnly(server.Handler, fiberCfg.RequestMethods))
	server.ErrorHandler = markPartialRequests(server.ErrorHandler)
	s.largeBodies = newLargeBodies(cfg.Clock, fiberCfg.ReadTimeout)
	server.HeaderReceived = s.leakReportBodyLimit
	s.connections = newConnectionLimit(cfg.MaxConnsPerAddress, cfg.TrustedProxies, s.errorBodies[errorKey{http.StatusTooManyRequests, textRateLimited}], s.requestIDs)
	if s.metrics != nil {
		s.connections.refused = func() { s.metrics.refusedBy(limitConnections) }
	}
	server.ConnState = s.connections.connectionStateHook(server.ConnState)
	if cfg.Tournaments {
		s.tournamentSaves = newTournamentSaves(deps.TournamentStore, s.log, cfg.DatabaseTimeout)
	}
	s.routes()
	s.unsubscribe = deps.History.SubscribeClanChanges(s.clanChanged)
	return s, nil
}

// maxBody bounds the body of a request: none of the API's GET routes
// reads one.
const maxBody = 16 << 10

// fiberConfig is the configuration of the API's Fiber application:
// timeouts, buffer sizes, body limit (maxBody; leak reports have their own,
// see leakReportBodyLimit) and its error handler.
func fiberConfig(errorHandler fiber.ErrorHandler) fiber.Config {
	return fiber.Config{
		ErrorHandler:          errorHandler,
		AppName:               "crowns",
		DisableStartupMessage: true,
		Network:               fiber.NetworkTCP,
		// A client has 10 s to send a request's head, and an idle
		// keep-alive connection is closed after a minute.
		ReadTimeout:    10 * time.Second,
		WriteTimeout:   30 * time.Second,
		IdleTimeout:    60 * time.Second,
		BodyLimit:      maxBody,
		ReadBufferSize: 8 << 10,
		RequestMethods: requestMethods(),
	}
}

// App returns the Fiber application, for tests (app.Test) and embedding.
func (s *Server) App() *fiber.App { return s.app }

// Serve answers requests on ln until Shutdown, each client address
// holding at most Config.MaxConnsPerAddress connections. After Shutdown it
// closes ln and returns at once.
func (s *Server) Serve(ln net.Listener) error {
	s.serving.Lock()
	if s.stopped {
		s.serving.Unlock()
		_ = ln.Close()
		return nil
	}
	limited := s.connections.listener(ln, outage.New(outage.Config{
		Logger:    s.log,
		Now:       s.clock.Now,
		Failing:   "cannot accept connections; trying again",
		Recovered: "accepting connections again",
	}))
	s.listener = limited
	s.serving.Unlock()
	return s.app.Listener(limited)
}

// Shutdown stops taking requests and waits for those in flight, at most
// until ctx ends. It first drains the open connections (see drain), so
// that a keep-alive client is told to close its connection rather than
// have it closed under its next request. Requests still running when ctx
// ends are cut (see cut): Shutdown returns once their handlers have, so
// nothing a request does (its usage counted, a database read) comes after
// it. The error is ctx's when it ended before every request was answered.
func (s *Server) Shutdown(ctx context.Context) (Drained, error) {
	s.unsubscribe()
	s.drain(ctx)
	err := s.app.ShutdownWithContext(ctx)
	s.closeListener()
	drained := Drained{CutRequests: s.cut()}
	if s.tournamentSaves != nil {
		s.tournamentSaves.close()
	}
	return drained, err
}

// Drained is what Shutdown found when it stopped waiting, for its log.
type Drained struct {
	// CutRequests is how many requests were still running, and were cut
	// (see cut): 0 when every request was answered in time.
	CutRequests int64
}

// closeListener closes the listener Serve was given, and has a later
// Serve return at once: the HTTP server closes only the listeners it has
// begun to serve, and a Serve called just before Shutdown may not have
// begun yet (it would serve on after Shutdown returned).
func (s *Server) closeListener() {
	s.serving.Lock()
	defer s.serving.Unlock()
	s.stopped = true
	if s.listener != nil {
		_ = s.listener.Close()
	}
}

// routes registers the contract's routes. Health routes, the OpenAPI
// document and its page, and switched-off tournament routes need no key;
// everything else is authenticated and rate limited; whatever matches
// nothing is "Path not found". Routes that answer lists take max and page
// (paged), the search's windows of them linked to each other
// (pagedLinked); history answers are keyed by slot (keyedBySlot).
func (s *Server) routes() {
	s.app.Use(s.requestContext, s.allowReadOnly)

	s.get("/healthz", s.handleHealthz)
	s.get("/readyz", s.handleReadyz)
	s.docsRoutes()

	s.get("/clan/search", s.withKey(s.pagedLinked(s.handleClanSearch))...)
	s.get("/clan/:tag/history", s.withKey(s.keyedBySlot(s.handleHistory))...)
	s.get("/clan/:tag/history/weekly", s.withKey(s.keyedBySlot(s.handleWeeklyHistory))...)
	s.get("/clan/:tag/track", s.withKey(s.handleTrack)...)
	s.get("/clan/:tag/tracking", s.withKey(s.handleTracking)...)
	s.get("/player/:tag/battles", s.withKey(s.paged(s.handleBattles))...)
	if s.deps.UsageReports != nil {
		s.get("/auth/stats", s.authenticateFree, s.handleAuthStats)
	}

	s.get("/tournament/:tags", s.tournamentRoute(s.handleTournaments)...)
	for _, list := range tournamentLists() {
		s.get("/tournaments/"+list.name, s.tournamentRoute(s.paged(s.tournamentListHandler(list)))...)
	}
	// After the lists: no list name is a valid tag.
	s.get("/tournaments/:tags", s.tournamentRoute(s.handleTournaments)...)

	s.route(fiber.MethodPost, leakReportPath, s.handleLeakReport)

	s.app.Use(func(*fiber.Ctx) error { return errPathNotFound })
}

// get registers a GET (and HEAD) route; with metrics or usage counting,
// a first handler names the route's pattern and bound metrics to the
// request, for requestContext to count it by.
func (s *Server) get(pattern string, handlers ...fiber.Handler) {
	s.route(fiber.MethodGet, pattern, handlers...)
}

// route registers a route of method (GET also answers HEAD), naming its
// bound metrics and its pattern for the usage counts as get says.
func (s *Server) route(method, pattern string, handlers ...fiber.Handler) {
	if route := s.metrics.route(pattern); route != nil || s.deps.Usage != nil {
		handlers = append([]fiber.Handler{func(c *fiber.Ctx) error {
			if st := stateOf(c); st != nil {
				st.route, st.pattern = route, pattern
			}
			return c.Next()
		}}, handlers...)
	}
	if method == fiber.MethodGet {
		s.app.Get(pattern, handlers...)
		return
	}
	s.app.Add(method, pattern, handlers...)
}

// withKey puts authentication and rate limiting in front of a handler.
func (s *Server) withKey(handler fiber.Handler) []fiber.Handler {
	return []fiber.Handler{s.authenticate, handler}
}

// tournamentRoute answers 501 while tournaments are switched off, before
// any other check; otherwise the route is authenticated like the others.
func (s *Server) tournamentRoute(handler fiber.Handler) []fiber.Handler {
	return append([]fiber.Handler{s.tournamentsSwitch}, s.withKey(handler)...)
}
