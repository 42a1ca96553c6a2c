package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// sandboxToken is the Bearer token sent to the in-process sandbox, which
// accepts any.
const sandboxToken = "sandbox"

// openGameUpstream returns the client of the configured game upstream: the
// official API with CROWNS_UPSTREAM_TOKEN, or, when no token is set, the
// sandbox world (default seed, the configured track address, clock) served
// in-process on a loopback port. stop shuts the sandbox down (a no-op for
// the official API).
func openGameUpstream(ctx context.Context, cfg config, log *slog.Logger, clock models.Clock) (client *upstream.Client, stop func(context.Context) error, err error) {
	baseURL, token := cfg.UpstreamURL, cfg.UpstreamToken
	stop = func(context.Context) error { return nil }
	if cfg.usesSandbox() {
		world := sandbox.NewWorld(sandbox.Config{Seed: sandbox.DefaultSeed, Clock: clock, TrackAddress: cfg.TrackAddress})
		if baseURL, stop, err = sandbox.Start(ctx, world, "127.0.0.1:0"); err != nil {
			return nil, nil, fmt.Errorf("start the in-process sandbox: %w", err)
		}
		token = sandboxToken
	}
	client, err = upstream.New(upstream.Config{
		BaseURL:     baseURL,
		Token:       token,
		Timeout:     cfg.UpstreamTimeout,
		Concurrency: cfg.UpstreamConcurrency,
		Logger:      log,
		Clock:       clock,
	})
	if err != nil {
		_ = stop(ctx)
		return nil, nil, fmt.Errorf("game upstream client: %w", err)
	}
	return client, stop, nil
}
