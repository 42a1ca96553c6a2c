// Command crowns is the one binary of Crowns: the HTTP API, the Discord key
// desk and the snapshot scheduler (crowns serve), plus the operator
// commands around them (keys, clans, sandbox, migrate, healthcheck,
// version). crowns --help lists them.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
)

// version is the release this binary was built from, set at build time
// with -ldflags "-X main.version=v1.2.3"; when it is empty, crowns version
// reads the module version and revision from the build information.
var version string

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
	// environ lists the environment as NAME=value entries (nil: none), to
	// find misspelled CROWNS_* variables.
	environ func() []string
	stdout  io.Writer
	stderr  io.Writer
	clock   models.Clock
	// hurry ends at a second stop signal (nil: never): a shutdown under
	// way stops waiting for the requests in flight.
	hurry context.Context
}

func main() {
	ctx, hurry, release := stopSignals()
	code := run(ctx, os.Args[1:], cli{getenv: os.Getenv, environ: os.Environ, stdout: os.Stdout, stderr: os.Stderr, clock: models.SystemClock{}, hurry: hurry})
	release()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the process exit code.
// Without a command it serves, as "crowns serve" does.
func run(ctx context.Context, args []string, env cli) int {
	if env.clock == nil {
		env.clock = models.SystemClock{}
	}
	if env.hurry == nil {
		env.hurry = context.Background()
	}
	if len(args) == 0 {
		return runServe(ctx, env, nil)
	}
	name, rest := args[0], args[1:]
	switch {
	case isHelpRequest(name):
		return runHelp(ctx, env, rest)
	case name == "--version" || name == "-version":
		return runVersion(ctx, env, rest)
	case strings.HasPrefix(name, "-"):
		return usageError(env, "crowns", fmt.Errorf("unknown flag %s", name), "crowns --help")
	}
	c, ok := findCommand(name)
	if !ok {
		return usageError(env, "crowns", fmt.Errorf("unknown command %q", name), "crowns --help")
	}
	return c.run(ctx, env, rest)
}

// setup reads and validates the configuration with load (loadConfig, or
// loadServeConfig for the server) and builds the logger; on a bad
// configuration it writes the problems to stderr.
func setup(env cli, load func(getenv func(string) string) (config, error)) (config, *slog.Logger, bool) {
	cfg, err := load(env.getenv)
	if err != nil {
		// A misspelled variable is often why the configuration is refused
		// (CROWNS_DISCORD_GUILD for CROWNS_DISCORD_GUILD_ID): it is named
		// first, as a valid start names it.
		if env.jsonLogs() {
			log := slog.New(slog.NewJSONHandler(env.stderr, nil))
			warnUnknownVariables(env, log)
			problems := strings.Split(err.Error(), "\n")
			log.Error("crowns: invalid configuration", "problems", problems)
			return config{}, nil, false
		}
		warnUnknownVariables(env, slog.New(slog.NewTextHandler(env.stderr, nil)))
		// One problem fits on one line; several are listed below.
		if problems := err.Error(); strings.Contains(problems, "\n") {
			fmt.Fprintf(env.stderr, "crowns: invalid configuration:\n%s\n", indent(problems))
		} else {
			fmt.Fprintf(env.stderr, "crowns: invalid configuration: %s\n", problems)
		}
		return config{}, nil, false
	}
	log := newLogger(env.stderr, cfg)
	warnUnknownVariables(env, log)
	return cfg, log, true
}

// warnUnknownVariables writes one warning per CROWNS_* variable of the
// environment that no setting reads, with the known name closest to it.
func warnUnknownVariables(env cli, log *slog.Logger) {
	if env.environ == nil {
		return
	}
	for _, v := range unknownVariables(env.environ()) {
		log.Warn("unknown configuration variable ignored", "name", v.name, "closest", v.closest)
	}
}

func newLogger(w io.Writer, cfg config) *slog.Logger { return slog.New(logHandler(w, cfg)) }

// logHandler writes records to w in cfg's format, from cfg's level on.
// Durations read as durations ("3m0s") in both formats: the text handler
// writes them so itself; the JSON handler, which would write nanoseconds,
// is given durationAsText. The text handler is not, as a ReplaceAttr
// doubles the cost of every line (about 0.5 µs more per line).
func logHandler(w io.Writer, cfg config) slog.Handler {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	if cfg.LogFormat == "json" {
		return slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: durationAsText})
	}
	return slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})
}

// durationAsText is a slog ReplaceAttr: a duration becomes its text,
// "1.5s", where slog's JSON handler would write nanoseconds.
func durationAsText(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.StringValue(a.Value.Duration().String())
	}
	return a
}

// openDatabase opens the configured database, applies pending migrations
// and checks the key secret against the one the database was first used
// with; it returns the store and the secret.
func openDatabase(ctx context.Context, cfg config, log *slog.Logger, clock models.Clock) (*store.Store, []byte, error) {
	db, err := store.Open(ctx, store.DatabaseConfig{URL: cfg.DatabaseURL, DataDir: cfg.DataDir, Logger: log, Clock: clock})
	if err != nil {
		return nil, nil, fmt.Errorf("open database: %w", err)
	}
	applied, err := db.Migrate(ctx)
	if err != nil {
		_ = db.Close()
		return nil, nil, fmt.Errorf("migrate database: %w", err)
	}
	for _, name := range applied {
		log.Info("applied database migration", "migration", name)
	}
	secret, err := loadSecret(ctx, cfg, log, db)
	if err != nil {
		_ = db.Close()
		return nil, nil, err
	}
	if err := keys.VerifySecret(ctx, db, secret, clock.Now()); err != nil {
		_ = db.Close()
		if errors.Is(err, keys.ErrSecretDiffers) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("check key secret: %w", err)
	}
	return db, secret, nil
}

// openCommandDatabase reads the configuration and opens the migrated
// database for an operator command. When it cannot, it has written why to
// stderr, prefixed with command, and code is the exit code to return.
func openCommandDatabase(ctx context.Context, env cli, command string) (cfg config, log *slog.Logger, db *store.Store, secret []byte, code int) {
	cfg, log, ok := setup(env, loadConfig)
	if !ok {
		return config{}, nil, nil, nil, exitUsage
	}
	db, secret, err := openDatabase(ctx, cfg, log, env.clock)
	if err != nil {
		commandFailed(env, command, err.Error())
		return config{}, nil, nil, nil, startFailureCode(err)
	}
	return cfg, log, db, secret, exitOK
}

// startFailureCode is the exit code of a process that could not start:
// 2 for a secret that is lost, differs from the deployment's or sits in
// a file that cannot be used as it is, readable by others say (the
// configuration is wrong; a missing one is refused with the rest of the
// configuration), 1 otherwise.
func startFailureCode(err error) int {
	if errors.Is(err, keys.ErrSecretDiffers) || errors.Is(err, errSecretFileLost) || errors.Is(err, keys.ErrSecretFileUnusable) {
		return exitUsage
	}
	return exitFailure
}

func indent(text string) string {
	return "  " + strings.ReplaceAll(text, "\n", "\n  ")
}
