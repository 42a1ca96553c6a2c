package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/crownsdev/crowns/upstream/sandbox"
)

// defaultSandboxAddr is where crowns sandbox listens unless told otherwise.
const defaultSandboxAddr = "127.0.0.1:8090"

const sandboxUsageText = `Usage: crowns sandbox [--addr HOST:PORT] [--seed N]

Serves the offline sandbox world alone under /v1, exactly like the official
game API's base URL: any Bearer token is accepted, a request without one gets
the official 403 body. The start-up log names a few tags to try; it is
written as crowns serve writes its own (CROWNS_LOG_FORMAT, CROWNS_LOG_LEVEL).
Clan descriptions of trackable clans contain CROWNS_TRACK_ADDRESS.

  --addr HOST:PORT  listen address (default ` + defaultSandboxAddr + `)
  --seed N          seed of the world (default the sandbox's own)

Exit status: 0 stopped, 1 cannot listen, 2 bad arguments or configuration.
`

// sandboxRequest is a parsed crowns sandbox command line.
type sandboxRequest struct {
	addr string
	seed int64
}

// parseSandboxArgs reads the flags of crowns sandbox; its errors are one
// line.
func parseSandboxArgs(args []string) (sandboxRequest, error) {
	req := sandboxRequest{}
	fs := flag.NewFlagSet("crowns sandbox", flag.ContinueOnError)
	fs.StringVar(&req.addr, "addr", defaultSandboxAddr, "listen address HOST:PORT")
	fs.Int64Var(&req.seed, "seed", sandbox.DefaultSeed, "seed of the world")
	if err := parseFlags(fs, args); err != nil {
		return req, err
	}
	if !validListenAddr(req.addr) {
		return req, fmt.Errorf("--addr must be HOST:PORT with a port from 0 to 65535, got %q", req.addr)
	}
	return req, nil
}

// loadSandboxConfig reads the settings crowns sandbox uses: the address
// trackable clans carry in their description, and the log's level and
// format, checked as crowns serve checks them.
func loadSandboxConfig(getenv func(string) string) (config, error) {
	r := envReader{getenv: getenv}
	cfg := config{
		TrackAddress: r.str("CROWNS_TRACK_ADDRESS", defaultTrackAddress),
		LogLevel:     r.logLevel(),
		LogFormat:    r.logFormat(),
	}
	if len(r.problems) > 0 {
		return config{}, errors.New(strings.Join(r.problems, "\n"))
	}
	return cfg, nil
}

// runSandbox serves the sandbox world alone under /v1 until ctx ends.
func runSandbox(ctx context.Context, env cli, args []string) int {
	req, code, done := parseCommand(env, "crowns sandbox", sandboxUsageText, args, parseSandboxArgs)
	if done {
		return code
	}
	cfg, log, ok := setup(env, loadSandboxConfig)
	if !ok {
		return exitUsage
	}
	trackAddress := cfg.TrackAddress
	world := sandbox.NewWorld(sandbox.Config{Seed: req.seed, Clock: env.clock, TrackAddress: trackAddress})

	baseURL, stop, err := sandbox.Start(ctx, world, req.addr)
	if err != nil {
		log.Error("cannot listen", "addr", req.addr, "error", err)
		return exitFailure
	}
	logSandboxSamples(log, world, baseURL, req.seed, trackAddress)
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := stop(shutdownCtx); err != nil {
		log.Error("sandbox shutdown", "error", err)
		return exitFailure
	}
	log.Info("sandbox stopped")
	return exitOK
}

// logSandboxSamples tells the user where the world is and a few tags to
// try.
func logSandboxSamples(log *slog.Logger, world *sandbox.World, baseURL string, seed int64, trackAddress string) {
	attrs := []any{"url", baseURL, "seed", seed, "trackAddress", trackAddress, "clans", len(world.ClanTags())}
	if tags := world.TrackableClanTags(); len(tags) > 0 {
		attrs = append(attrs, "trackableClan", tags[0])
	}
	if tags := world.PlayerTags(); len(tags) > 0 {
		attrs = append(attrs, "player", tags[0])
	}
	if tags := world.TournamentTags(); len(tags) > 0 {
		attrs = append(attrs, "tournament", tags[len(tags)-1])
	}
	log.Info("sandbox serving the game API (any Bearer token is accepted)", attrs...)
}
