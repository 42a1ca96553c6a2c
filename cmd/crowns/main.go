// Command crowns is the one binary of Crowns: the HTTP API, the Discord key
// desk and the snapshot scheduler (crowns serve), plus the operator
// commands around them (keys, clans, sandbox, migrate, version).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/crownsdev/crowns/models"
)

// version is the release this binary was built from, set at build time
// with -ldflags "-X main.version=v1.2.3".
var version = "dev"

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// cli is what a command reads and writes: the environment, the output
// streams and the clock. Tests build their own.
type cli struct {
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	clock  models.Clock
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], cli{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr, clock: models.SystemClock{}})
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, env cli) int {
	if env.clock == nil {
		env.clock = models.SystemClock{}
	}
	command := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		command, args = args[0], args[1:]
	}
	switch command {
	case "serve":
		return runServe(ctx, env, args)
	case "migrate":
		return runMigrate(ctx, env, args)
	case "keys":
		return runKeys(ctx, env, args)
	case "sandbox":
		return runSandbox(ctx, env, args)
	case "clans":
		return runClans(ctx, env, args)
	case "version":
		fmt.Fprintln(env.stdout, "crowns", version)
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(env.stdout, usageText)
		return exitOK
	default:
		fmt.Fprintf(env.stderr, "crowns: unknown command %q (run 'crowns help' for the list)\n", command)
		return exitUsage
	}
}

const usageText = `crowns — game statistics API with Discord-issued developer keys

Usage:
  crowns [serve]                 run the roles selected by CROWNS_ROLES (default)
  crowns keys <action> ...       manage developer keys (run 'crowns keys' for actions)
  crowns clans <action> ...      manage tracked clans (run 'crowns clans' for actions)
  crowns sandbox --addr H:P      serve the offline sandbox world under /v1
  crowns migrate                 apply pending database migrations and exit
  crowns version                 print the release

Configuration comes from CROWNS_* environment variables; see the README.
`

// setup reads and validates the configuration and builds the logger; on a
// bad configuration it writes the problems to stderr.
func setup(env cli) (config, *slog.Logger, bool) {
	cfg, err := loadConfig(env.getenv)
	if err != nil {
		fmt.Fprintf(env.stderr, "crowns: invalid configuration:\n%s\n", indent(err.Error()))
		return config{}, nil, false
	}
	return cfg, newLogger(env.stderr, cfg), true
}

func newLogger(w io.Writer, cfg config) *slog.Logger { return slog.New(logHandler(w, cfg)) }

// logHandler writes records to w in cfg's format, from cfg's level on.
func logHandler(w io.Writer, cfg config) slog.Handler {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// openDatabase opens the configured database and applies pending
// migrations.
func openDatabase(ctx context.Context, cfg config, log *slog.Logger) (*models.Store, error) {
	store, err := models.Open(ctx, models.DatabaseConfig{URL: cfg.DatabaseURL, DataDir: cfg.DataDir, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	applied, err := store.Migrate(ctx)
	if err != nil {
		_ = store.Close()
		return nil, fmt.Errorf("migrate database: %w", err)
	}
	for _, name := range applied {
		log.Info("applied database migration", "migration", name)
	}
	return store, nil
}

// parseCommand parses an operator command's arguments with parse. A
// request for usage (help, -h, --help) prints usage; bad arguments print
// "<command>: <reason>" to stderr. done says the command has answered,
// with exit code code.
func parseCommand[R any](env cli, command, usage string, args []string, parse func([]string) (R, error)) (req R, code int, done bool) {
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(env.stdout, usage)
		return req, exitOK, true
	}
	req, err := parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(env.stdout, usage)
		return req, exitOK, true
	case err != nil:
		fmt.Fprintf(env.stderr, "%s: %v\n", command, err)
		return req, exitUsage, true
	}
	return req, exitOK, false
}

// openCommandDatabase reads the configuration and opens the migrated
// database for an operator command. When it cannot, it has written why to
// stderr, prefixed with command, and code is the exit code to return.
func openCommandDatabase(ctx context.Context, env cli, command string) (cfg config, log *slog.Logger, store *models.Store, code int) {
	cfg, log, ok := setup(env)
	if !ok {
		return config{}, nil, nil, exitUsage
	}
	store, err := openDatabase(ctx, cfg, log)
	if err != nil {
		fmt.Fprintf(env.stderr, "%s: %v\n", command, err)
		return config{}, nil, nil, exitFailure
	}
	return cfg, log, store, exitOK
}

// runMigrate applies pending migrations and exits.
func runMigrate(ctx context.Context, env cli, args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(env.stderr, "crowns migrate: takes no arguments")
		return exitUsage
	}
	_, _, store, code := openCommandDatabase(ctx, env, "crowns migrate")
	if code != exitOK {
		return code
	}
	defer store.Close()
	version, err := store.SchemaVersion(ctx)
	if err != nil {
		fmt.Fprintf(env.stderr, "crowns migrate: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(env.stdout, "database schema at version %d\n", version)
	return exitOK
}

func indent(text string) string {
	return "  " + strings.ReplaceAll(text, "\n", "\n  ")
}
