package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/internal/logbuffer"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/scheduler"
	"github.com/crownsdev/crowns/upstream"
)

const serveUsageText = `Usage: crowns [serve]

Runs the roles selected by CROWNS_ROLES — the API, the Discord key desk, the
snapshot scheduler — until SIGINT or SIGTERM, then shuts down in order (a
second signal stops waiting for requests in flight, a third ends it). It
takes no flags: configuration comes from the environment, validated at start
(every problem listed, exit 2) and logged once with secrets masked.

With nothing set it uses the SQLite file in ./crowns-data and the offline
sandbox, and on the first start prints a ready-to-use developer key.

Main variables (every one, with defaults, in the README):
  CROWNS_ADDR            listen address of the API (default :8080)
  CROWNS_METRICS_ADDR    where /metrics is served, never the API's address
                         (default 127.0.0.1:9181; off: none)
  CROWNS_DATA_DIR        SQLite file and generated secret (default ./crowns-data)
  CROWNS_DATABASE_URL    postgres://... selects PostgreSQL
  CROWNS_SECRET          base64 of at least 32 bytes; required with PostgreSQL
                         (CROWNS_SECRET_FILE: read it from a file)
  CROWNS_UPSTREAM_TOKEN  game API token (unset: the in-process sandbox)
  CROWNS_ROLES           api,bot,scheduler (default all three)
  CROWNS_LOG_FORMAT      text or json; CROWNS_LOG_LEVEL debug, info, warn, error
  CROWNS_DISCORD_TOKEN   the key desk bot (see docs/discord.md)

Exit status: 0 stopped, 1 failed to start (a port taken, the database not
reachable within a minute) or stopped by a failure, 2 bad arguments or
configuration (a key secret that differs from the database's included).
`

// runServe runs the roles selected by CROWNS_ROLES until ctx ends (SIGINT
// or SIGTERM), then shuts down in order: stop taking requests and drain
// those in flight, stop the background work, close the database.
func runServe(ctx context.Context, env cli, args []string) int {
	if _, code, done := parseCommand(env, "crowns serve", serveUsageText, args, noArguments("crowns serve")); done {
		return code
	}
	cfg, _, ok := setup(env, loadServeConfig)
	if !ok {
		return exitUsage
	}
	out := logbuffer.New(env.stderr)
	defer func() { _ = out.Close() }()
	log := newBufferedLogger(out, cfg)
	logConfiguration(out, log, cfg)
	if cfg.Roles.API && cfg.ShutdownTimeout < api.DefaultRequestTimeout {
		log.Warn("CROWNS_SHUTDOWN_TIMEOUT is shorter than a request may take: at shutdown, a request still running past it is cut off",
			"CROWNS_SHUTDOWN_TIMEOUT", cfg.ShutdownTimeout, "requestTimeout", api.DefaultRequestTimeout)
	}
	node, err := startNode(ctx, cfg, env, log, out.AccessLines())
	if err != nil && ctx.Err() != nil {
		// Stopped while starting (waiting for the database, say): a stop
		// asked for, not a failure.
		log.Info("stopped while starting", "startingStep", err)
		return exitOK
	}
	if err != nil {
		log.Error("cannot start", "error", err)
		return startFailureCode(err)
	}
	failed := node.wait(ctx)
	stopping := time.Now() // a measurement for the log, not the injected clock's time
	node.shutdown(env.hurry, cfg, log)
	if failed != nil {
		log.Error("stopped after a failure", "error", failed, "took", stageTime(time.Since(stopping)))
		return exitFailure
	}
	log.Info("stopped", "took", stageTime(time.Since(stopping)))
	return exitOK
}

// node is one running crowns process: its parts and its background work.
type node struct {
	db   *store.Store
	keys *keys.Service
	game *gameSource
	api  *api.Server
	// listen is the API's port and metricsListen the metrics' (nil
	// without the API role, and with CROWNS_METRICS_ADDR=off), both bound
	// before anything else starts.
	listen        net.Listener
	metricsListen net.Listener
	// starting answers on listen until the API takes it over (nil once
	// it has, and without the API role).
	starting *startingServer
	// registry holds this process's metrics and metrics serves them; both
	// nil with CROWNS_METRICS_ADDR=off.
	registry *prometheus.Registry
	metrics  *metricsServer

	// background is cancelled at shutdown; work tracks its goroutines,
	// and workNames names them in the order they started.
	background context.CancelFunc
	work       sync.WaitGroup
	workNames  []string
	// failures carries errors that end the process early (the listener
	// failing).
	failures chan error
}

// startNode takes the ports it serves on, opens the database, builds
// every part of the selected roles and starts them, logging to log; the
// API writes its access lines to accessLines itself. On failure it undoes
// what it started.
func startNode(ctx context.Context, cfg config, env cli, log *slog.Logger, accessLines io.Writer) (n *node, err error) {
	if env.getenv("GOGC") == "" {
		debug.SetGCPercent(cfg.GCPercent)
	}
	if env.getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	n = &node{failures: make(chan error, 4)}
	backgroundCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	n.background = cancel
	defer func() {
		if err != nil {
			n.shutdown(env.hurry, cfg, log)
		}
	}()
	if err = n.bindListeners(cfg); err != nil {
		return n, err
	}
	if n.listen != nil {
		n.starting = answerWhileStarting(n.listen, api.StartingHandler(cfg.SupportInfo), log)
	}
	var secret []byte
	if n.db, secret, err = openDatabaseWhenUp(ctx, cfg, log, env.clock, defaultDatabaseStartWait()); err != nil {
		return n, err
	}
	if err = n.startMetrics(log); err != nil {
		return n, err
	}
	if n.keys, err = newKeyService(secret, n.db, log, env.clock); err != nil {
		return n, err
	}
	n.goBackground("key sync and usage flush", func() { n.keys.Run(backgroundCtx) })
	n.goBackground("redacting keys in stored reasons", func() {
		redactStoredReasons(models.AsBackground(backgroundCtx), n.keys, log, env.clock, storedReasonsRetry())
	})
	if n.game, err = openGameSource(cfg, env.clock, log, n.metricsRegisterer()); err != nil {
		return n, err
	}
	if cfg.Roles.API {
		if err = n.startCatalogRefresher(ctx, backgroundCtx, env, log); err != nil {
			return n, err
		}

		// Other replicas' snapshots and tracking changes drop this API's
		// cached history answers (NOTIFY on PostgreSQL, the clan_changes
		// outbox on SQLite).
		n.goBackground("clan change listener", func() {
			if err := n.db.ListenForClanChanges(backgroundCtx); err != nil {
				log.Error("clan change listener stopped", "error", err)
			}
		})
	}
	if cfg.Roles.Scheduler {
		if err = n.startScheduler(backgroundCtx, cfg, env, log); err != nil {
			return n, err
		}
	}
	if cfg.Roles.Scheduler && cfg.Tournaments {
		refresher, err := newTournamentRefresher(cfg, n.db, n.game.client, env.clock, log, n.metricsRegisterer())
		if err != nil {
			return n, fmt.Errorf("tournament refresher: %w", err)
		}
		n.goBackground("tournament refresh", func() { _ = refresher.Run(backgroundCtx) })
	}
	if cfg.Roles.API {
		if err = n.startAPI(ctx, backgroundCtx, cfg, env, log, accessLines); err != nil {
			return n, err
		}
		// Each key's rate limit is shared among the live replicas.
		n.goBackground("rate limit sharing", func() { n.api.ShareRateLimit(backgroundCtx, n.db) })
	}
	if cfg.botEnabled() {
		desk, err := newKeyDesk(cfg, n.db, n.keys, n.db, log, env.clock, n.metricsRegisterer())
		if err != nil {
			return n, err
		}
		n.goBackground("Discord key desk", func() {
			if err := desk.Run(backgroundCtx); err != nil {
				log.Error("Discord key desk stopped", "error", err)
			}
		})
	} else if cfg.Roles.Bot {
		log.Info("Discord key desk off: CROWNS_DISCORD_TOKEN is unset")
	}
	return n, nil
}

// bindListeners takes the API's port (with the API role) and the metrics'
// (unless off) before anything else starts, so a port already taken ends
// the start at once, before the database is opened or any background work
// runs. Until the API serves, the starting server answers on its port
// (see answerWhileStarting).
func (n *node) bindListeners(cfg config) (err error) {
	if cfg.Roles.API {
		if n.listen, err = net.Listen("tcp", cfg.Addr); err != nil {
			return fmt.Errorf("listen on %s (CROWNS_ADDR): %w", cfg.Addr, err)
		}
	}
	if cfg.MetricsAddr != metricsOff {
		if n.metricsListen, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			return fmt.Errorf("listen for metrics on %s (CROWNS_METRICS_ADDR): %w", cfg.MetricsAddr, err)
		}
	}
	return nil
}

// startCatalogRefresher puts the stored copies of the game's card and
// location lists to use, then keeps them current in the background
// (fetched at once, then daily) until background ends.
func (n *node) startCatalogRefresher(ctx, background context.Context, env cli, log *slog.Logger) error {
	refresher, err := upstream.NewCatalogRefresher(n.game.client, n.db, upstream.CatalogRefresherConfig{Clock: env.clock, Logger: log})
	if err != nil {
		return err
	}
	refresher.LoadStored(ctx)
	n.goBackground("catalog refresh", func() { refresher.Run(background) })
	return nil
}

// startAPI serves the API on CROWNS_ADDR's listener, taken over from the
// starting server (whose last connections finish as background work); in
// the embedded mode the first start also prints a ready-to-use key. The
// API writes its access lines to accessLines itself.
func (n *node) startAPI(ctx, background context.Context, cfg config, env cli, log *slog.Logger, accessLines io.Writer) error {
	tracker, err := scheduler.NewTracker(n.db, n.game.client, scheduler.TrackerConfig{
		TrackAddress: cfg.TrackAddress, Clock: env.clock, Logger: log,
	})
	if err != nil {
		return err
	}
	server, err := api.New(api.Config{
		SupportInfo:          cfg.SupportInfo,
		RateLimitPerSecond:   cfg.RateLimitPerSecond,
		KeyLookupsPerAddress: cfg.KeyLookupsPerAddress,
		KeyLookupsPerSecond:  cfg.KeyLookupsPerSecond,
		TrustedProxies:       cfg.TrustedProxies,
		GameCallsPerKey:      cfg.GameCallsPerKey,
		RateLimitBurst:       cfg.RateLimitBurst,
		CacheTTL:             cfg.CacheTTL,
		HistoryCacheTTL:      cfg.HistoryCacheTTL,
		CacheBytes:           cfg.CacheBytes,
		Tournaments:          cfg.Tournaments,
		AccessLog:            cfg.AccessLog,
		AccessLines:          accessLines,
		LogFormat:            cfg.LogFormat,
		Metrics:              n.metricsRegisterer(),
		LeakReportKeys:       cfg.LeakReportKeys,
		Clock:                env.clock,
		Logger:               log,
	}, api.Dependencies{Keys: n.keys, Game: n.game.client, Health: n.db, Tracker: tracker, History: n.db,
		TournamentSource: n.game.client, TournamentStore: n.db, Usage: n.keys, UsageReports: n.keys, Leaks: n.keys})
	if err != nil {
		return err
	}
	n.endStartingAnswers(background)
	n.api = server
	go func() {
		if err := server.Serve(n.listen); err != nil {
			n.failures <- fmt.Errorf("serve API: %w", err)
		}
	}()
	log.Info("API listening", "addr", n.listen.Addr().String())
	if cfg.embedded() {
		if err := welcomeFirstStart(ctx, env.stdout, cfg.LogFormat == "json", n.keys, n.game.world, n.listen.Addr()); err != nil {
			log.Warn("could not prepare the local developer key", "error", err)
		}
	}
	return nil
}

// endStartingAnswers stops the starting server taking connections, the
// API's listener left open for the app, and finishes the connections it
// took as background work, until background ends.
func (n *node) endStartingAnswers(background context.Context) {
	if n.starting == nil {
		return
	}
	starting := n.starting
	n.starting = nil
	starting.handOver()
	n.goBackground("last answers while starting", func() { starting.finish(background) })
}

// startMetrics builds this process's metrics registry and serves it on
// CROWNS_METRICS_ADDR's listener, unless metrics are off.
func (n *node) startMetrics(log *slog.Logger) (err error) {
	if n.metricsListen == nil {
		return nil
	}
	if n.registry, err = newMetricsRegistry(n.db); err != nil {
		return err
	}
	n.metrics = startMetricsServer(n.metricsListen, n.registry, log, n.failures)
	return nil
}

// metricsRegisterer is where the roles register their metrics; nil when
// metrics are off.
func (n *node) metricsRegisterer() prometheus.Registerer {
	if n.registry == nil {
		return nil
	}
	return n.registry
}

// schedulerSettings is the snapshot scheduler's configuration from the
// settings, but for its metrics, clock and logger: a snapshot's fetch is
// bounded by CROWNS_UPSTREAM_TIMEOUT, as every upstream call is.
func (c config) schedulerSettings() scheduler.Config {
	return scheduler.Config{
		TrackAddress:          c.TrackAddress,
		SnapshotConcurrency:   c.SnapshotConcurrency,
		SnapshotRatePerSecond: c.SnapshotRatePerSecond,
		UpstreamTimeout:       c.UpstreamTimeout,
		HistoryRetentionDays:  c.HistoryRetentionDays,
	}
}

// startScheduler runs the clan snapshot scheduler as background work; it
// stops claiming when ctx ends and finishes the writes it started.
func (n *node) startScheduler(ctx context.Context, cfg config, env cli, log *slog.Logger) error {
	settings := cfg.schedulerSettings()
	settings.Metrics, settings.Clock, settings.Logger = n.metricsRegisterer(), env.clock, log
	sched, err := scheduler.New(n.db, n.game.client, settings)
	if err != nil {
		return fmt.Errorf("scheduler: %w", err)
	}
	n.goBackground("snapshot scheduler", func() {
		if err := sched.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Error("scheduler stopped", "error", err)
		}
	})
	return nil
}

// goBackground runs fn as tracked background work, which the shutdown's
// log names.
func (n *node) goBackground(name string, fn func()) {
	n.workNames = append(n.workNames, name)
	n.work.Add(1)
	go func() {
		defer n.work.Done()
		fn()
	}()
}

// wait blocks until ctx ends (a clean stop) or a part fails.
func (n *node) wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-n.failures:
		return err
	}
}
