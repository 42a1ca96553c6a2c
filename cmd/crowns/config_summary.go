package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strings"
)

// configMessage is the message of the start-up configuration record.
const configMessage = "crowns configuration"

// logConfiguration writes the configuration once at start-up, secrets
// masked, each setting under the name of its environment variable: in
// JSON one record whose "config" group holds every variable, in text a
// table a person reads (out is where log lines go).
func logConfiguration(out io.Writer, log *slog.Logger, c config) {
	settings := c.summary()
	if c.LogFormat == "json" {
		log.LogAttrs(context.Background(), slog.LevelInfo, configMessage, slog.Attr{Key: "config", Value: slog.GroupValue(settings...)})
		return
	}
	width := 0
	for _, s := range settings {
		width = max(width, len(s.Key))
	}
	var b strings.Builder
	b.WriteString(configMessage + ":\n")
	for _, s := range settings {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, s.Key, s.Value)
	}
	_, _ = io.WriteString(out, b.String())
}

// summary is every variable the configuration reads, by its name, with
// the value in use (its default when unset) and, where a value alone
// would not say it, what it means; secrets masked. Durations stay
// durations: the log handlers print them as "3m0s".
func (c config) summary() []slog.Attr {
	database := "unset: SQLite in the data dir"
	if c.DatabaseURL != "" {
		database = maskDatabaseURL(c.DatabaseURL)
	}
	upstreamURL := c.UpstreamURL
	if c.usesSandbox() {
		upstreamURL = "unused: " + sandboxNote
	}
	tournaments := onOff(c.Tournaments)
	if c.Tournaments && !c.Roles.Scheduler {
		tournaments += " (no refresh here: the scheduler role is not selected)"
	}
	refresh := c.TournamentRefresh
	return []slog.Attr{
		slog.String("CROWNS_ADDR", c.Addr),
		slog.String("CROWNS_METRICS_ADDR", c.MetricsAddr),
		slog.String("CROWNS_DATA_DIR", c.DataDir),
		slog.String("CROWNS_DATABASE_URL", database),
		slog.String("CROWNS_SECRET", secretSource(c)),
		slog.String("CROWNS_SECRET_FILE", orNone(c.SecretFile)),
		slog.String("CROWNS_UPSTREAM_URL", upstreamURL),
		slog.String("CROWNS_UPSTREAM_TOKEN", maskedOr(c.UpstreamToken, "unset: "+sandboxNote)),
		slog.Duration("CROWNS_UPSTREAM_TIMEOUT", c.UpstreamTimeout),
		slog.Int("CROWNS_UPSTREAM_CONCURRENCY", c.UpstreamConcurrency),
		slog.String("CROWNS_TRACK_ADDRESS", c.TrackAddress),
		slog.String("CROWNS_SUPPORT_INFO", c.SupportInfo),
		slog.String("CROWNS_LEAK_REPORT_KEYS_FILE", orNone(c.LeakReportKeysFile)),
		slog.String("CROWNS_LEAK_REPORT_KEYS", orNone(leakKeysNote(c.LeakReportKeysJSON))),
		slog.Float64("CROWNS_RATE_LIMIT_PER_SECOND", c.RateLimitPerSecond),
		slog.Int("CROWNS_RATE_LIMIT_BURST", c.RateLimitBurst),
		slog.Float64("CROWNS_KEY_LOOKUPS_PER_ADDRESS", c.KeyLookupsPerAddress),
		slog.Float64("CROWNS_KEY_LOOKUPS_PER_SECOND", c.KeyLookupsPerSecond),
		slog.String("CROWNS_TRUSTED_PROXIES", orNone(prefixList(c.TrustedProxies))),
		slog.Float64("CROWNS_GAME_CALLS_PER_KEY", c.GameCallsPerKey),
		slog.Duration("CROWNS_CACHE_TTL", c.CacheTTL),
		slog.Duration("CROWNS_HISTORY_CACHE_TTL", c.HistoryCacheTTL),
		slog.Int64("CROWNS_CACHE_MB", c.CacheBytes>>20),
		slog.String("CROWNS_ROLES", c.Roles.String()),
		slog.String("CROWNS_TOURNAMENTS", tournaments),
		slog.String("CROWNS_TOURNAMENT_SEARCH_TERMS", strings.Join(refresh.SearchTerms, ",")),
		slog.Duration("CROWNS_TOURNAMENT_REFRESH_INTERVAL", refresh.RefreshInterval),
		slog.Int("CROWNS_TOURNAMENT_REFRESH_PER_MINUTE", refresh.RefreshPerMinute),
		slog.Duration("CROWNS_TOURNAMENT_DISCOVERY_INTERVAL", refresh.DiscoveryInterval),
		slog.Duration("CROWNS_TOURNAMENT_RETENTION", refresh.Retention),
		slog.Int("CROWNS_HISTORY_RETENTION_DAYS", c.HistoryRetentionDays),
		slog.Float64("CROWNS_SNAPSHOT_RATE_PER_SECOND", c.SnapshotRatePerSecond),
		slog.Int("CROWNS_SNAPSHOT_CONCURRENCY", c.SnapshotConcurrency),
		slog.String("CROWNS_DISCORD_TOKEN", discordState(c)),
		slog.String("CROWNS_DISCORD_GUILD_ID", orNone(c.DiscordGuildID)),
		slog.String("CROWNS_DISCORD_KEY_CHANNEL_ID", orNone(c.DiscordKeyChannelID)),
		slog.String("CROWNS_DISCORD_LOG_CHANNEL_ID", orNone(c.DiscordLogChannelID)),
		slog.String("CROWNS_DISCORD_PREFIX", c.DiscordPrefix),
		slog.String("CROWNS_LOG_LEVEL", c.LogLevel),
		slog.String("CROWNS_LOG_FORMAT", c.LogFormat),
		slog.String("CROWNS_ACCESS_LOG", onOff(c.AccessLog)),
		slog.Int("CROWNS_GC_PERCENT", c.GCPercent),
		slog.Int64("CROWNS_MEMORY_LIMIT_MB", c.MemoryLimit>>20),
		slog.Duration("CROWNS_SHUTDOWN_TIMEOUT", c.ShutdownTimeout),
	}
}

// sandboxNote says where game data comes from without a game-API token.
const sandboxNote = "the in-process sandbox serves game data"

// leakKeysNote stands for the public keys given in CROWNS_LEAK_REPORT_KEYS
// in the summary: their size, not a page of PEM.
func leakKeysNote(keys string) string {
	if keys == "" {
		return ""
	}
	return fmt.Sprintf("set (%d bytes)", len(keys))
}

// maskedOr is a secret masked, or unset when it is empty.
func maskedOr(secret, unset string) string {
	if secret == "" {
		return unset
	}
	return mask(secret)
}

// discordState is the summary's word on the Discord token: masked, and
// whether the bot runs.
func discordState(c config) string {
	switch {
	case c.DiscordToken == "":
		return "unset: the bot is off"
	case !c.Roles.Bot:
		return mask(c.DiscordToken) + ", but the bot role is not selected: the bot is off"
	}
	return mask(c.DiscordToken)
}

func secretSource(c config) string {
	if c.Secret == "" {
		return "generated file in the data dir"
	}
	return "from " + secretName(c) + " " + mask(c.Secret)
}

// secretName is the variable the secret came from.
func secretName(c config) string {
	if c.SecretFile != "" {
		return "CROWNS_SECRET_FILE"
	}
	return "CROWNS_SECRET"
}

// prefixList is prefixes as CROWNS_TRUSTED_PROXIES writes them.
func prefixList(prefixes []netip.Prefix) string {
	items := make([]string, len(prefixes))
	for i, prefix := range prefixes {
		items[i] = prefix.String()
	}
	return strings.Join(items, ",")
}
