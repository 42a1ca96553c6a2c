package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// sandboxToken is the Bearer token the in-process sandbox is called with;
// the sandbox accepts any.
const sandboxToken = "sandbox"

// gameSource is where game data comes from: the official API, or the
// sandbox world served on loopback in this process.
type gameSource struct {
	client *upstream.Client
	// world is the in-process sandbox, nil with the official API.
	world *sandbox.World
	// stop shuts the in-process sandbox down; a no-op otherwise.
	stop func(context.Context) error
}

// openGameSource builds the upstream client: against CROWNS_UPSTREAM_URL
// when a token is configured, else against a sandbox world started on a
// free loopback port, which the log says.
func openGameSource(cfg config, clock models.Clock, log *slog.Logger, metrics prometheus.Registerer) (*gameSource, error) {
	source := &gameSource{stop: func(context.Context) error { return nil }}
	baseURL, token := cfg.UpstreamURL, cfg.UpstreamToken
	if cfg.usesSandbox() {
		source.world = sandbox.NewWorld(sandbox.Config{Clock: clock, TrackAddress: cfg.TrackAddress})
		// The sandbox outlives the caller's context: it stops last, after
		// the API has drained the requests that may still call it.
		url, stop, err := sandbox.Start(context.Background(), source.world, "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("start in-process sandbox: %w", err)
		}
		baseURL, token, source.stop = url, sandboxToken, stop
		log.Info("game data from the in-process sandbox (CROWNS_UPSTREAM_TOKEN is unset); set a token to use the official API",
			"url", baseURL, "trackableClan", firstOf(source.world.TrackableClanTags()), "player", firstOf(source.world.PlayerTags()))
	} else {
		log.Info("game data from the official API", "url", baseURL)
	}
	client, err := upstream.New(upstream.Config{
		BaseURL:     baseURL,
		Token:       token,
		Timeout:     cfg.UpstreamTimeout,
		Concurrency: cfg.UpstreamConcurrency,
		Logger:      log,
		Clock:       clock,
		Metrics:     metrics,
	})
	if err != nil {
		_ = source.stop(context.Background())
		return nil, fmt.Errorf("upstream client: %w", err)
	}
	source.client = client
	return source, nil
}

// firstOf is the first of tags, or "" when there is none.
func firstOf(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return tags[0]
}
