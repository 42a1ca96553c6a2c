package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/crownsdev/crowns/upstream/sandbox"
)

// defaultSandboxAddr is where crowns sandbox listens unless told otherwise.
const defaultSandboxAddr = "127.0.0.1:8090"

// runSandbox serves the sandbox world alone under /v1 until ctx ends.
func runSandbox(ctx context.Context, env cli, args []string) int {
	flags := flag.NewFlagSet("crowns sandbox", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	addr := flags.String("addr", defaultSandboxAddr, "listen address HOST:PORT")
	seed := flags.Int64("seed", sandbox.DefaultSeed, "seed of the world")
	if err := flags.Parse(args); err != nil {
		fmt.Fprintf(env.stderr, "crowns sandbox: %v (usage: crowns sandbox [--addr HOST:PORT] [--seed N])\n", err)
		return exitUsage
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(env.stderr, "crowns sandbox: unexpected argument %q (usage: crowns sandbox [--addr HOST:PORT] [--seed N])\n", flags.Arg(0))
		return exitUsage
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		fmt.Fprintf(env.stderr, "crowns sandbox: --addr must be HOST:PORT, got %q\n", *addr)
		return exitUsage
	}
	trackAddress := strings.TrimSpace(env.getenv("CROWNS_TRACK_ADDRESS"))
	if trackAddress == "" {
		trackAddress = defaultTrackAddress
	}
	log := slog.New(slog.NewTextHandler(env.stderr, nil))
	world := sandbox.NewWorld(sandbox.Config{Seed: *seed, Clock: env.clock, TrackAddress: trackAddress})

	baseURL, stop, err := sandbox.Start(ctx, world, *addr)
	if err != nil {
		log.Error("cannot listen", "addr", *addr, "error", err)
		return exitFailure
	}
	logSandboxSamples(log, world, baseURL, *seed, trackAddress)
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
