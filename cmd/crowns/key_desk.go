package main

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/bot"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// newKeyDesk builds the Discord key desk from the CROWNS_DISCORD_*
// settings, on the process's key service and store (the store keeps the
// log channel's position in the key-event outbox). weekly switches weekly
// clan collection for /clan weekly; pass a literal nil while clan tracking
// is not wired (a typed nil pointer would not read as absent).
func newKeyDesk(cfg config, db *store.Store, keyService *keys.Service, weekly bot.WeeklyCollection, log *slog.Logger, clock models.Clock, metrics prometheus.Registerer) (*bot.Bot, error) {
	return bot.New(bot.Config{
		Token:        cfg.DiscordToken,
		GuildID:      cfg.DiscordGuildID,
		KeyChannelID: cfg.DiscordKeyChannelID,
		LogChannelID: cfg.DiscordLogChannelID,
		Prefix:       cfg.DiscordPrefix,
		// Usage alerts judge a key by its rate limit.
		RateLimitPerSecond: cfg.RateLimitPerSecond,
		Clock:              clock,
		Logger:             log,
		Metrics:            metrics,
	}, bot.Dependencies{Keys: keyService, Cursors: db, Weekly: weekly, Usage: keyService})
}
