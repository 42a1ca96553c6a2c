package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"unicode"
)

// configMessage is the message of the start-up configuration record.
const configMessage = "crowns configuration"

// logConfiguration writes the configuration once at start-up, secrets
// masked: in JSON one record whose "config" group holds every setting, in
// text a table a person reads (out is where log lines go).
func logConfiguration(out io.Writer, log *slog.Logger, c config) {
	settings := c.summary()
	if c.LogFormat == "json" {
		log.LogAttrs(context.Background(), slog.LevelInfo, configMessage, slog.Attr{Key: "config", Value: slog.GroupValue(settings...)})
		return
	}
	var b strings.Builder
	b.WriteString(configMessage + ":\n")
	for _, s := range settings {
		fmt.Fprintf(&b, "  %-22s %s\n", spacedWords(s.Key), textValue(s.Value))
	}
	_, _ = io.WriteString(out, b.String())
}

// summary is every setting as log attributes, secrets masked. Durations
// stay durations: the log handlers print them as "3m0s".
func (c config) summary() []slog.Attr {
	database := "sqlite (" + c.DataDir + ")"
	if c.DatabaseURL != "" {
		database = maskDatabaseURL(c.DatabaseURL)
	}
	upstream := c.UpstreamURL + " (token " + mask(c.UpstreamToken) + ")"
	if c.usesSandbox() {
		upstream = "in-process sandbox (CROWNS_UPSTREAM_TOKEN unset)"
	}
	return []slog.Attr{
		slog.String("addr", c.Addr),
		slog.String("dataDir", c.DataDir),
		slog.String("database", database),
		slog.String("secret", secretSource(c)),
		slog.String("upstream", upstream),
		slog.Duration("upstreamTimeout", c.UpstreamTimeout),
		slog.Int("upstreamConcurrency", c.UpstreamConcurrency),
		slog.String("trackAddress", c.TrackAddress),
		slog.String("leakReportKeysFile", orNone(c.LeakReportKeysFile)),
		slog.Group("rateLimit", slog.Float64("perSecond", c.RatePerSecond), slog.Int("burst", c.RateBurst)),
		slog.Float64("gameCallsPerKey", c.GameCallsPerKey),
		slog.Group("keyLookups", slog.Float64("perAddressPerSecond", c.KeyLookupsPerAddress), slog.Float64("perSecond", c.KeyLookupsPerSecond)),
		slog.Group("cache", slog.Duration("ttl", c.CacheTTL), slog.Duration("historyTtl", c.HistoryCacheTTL), slog.Int64("mib", c.CacheBytes>>20)),
		slog.String("roles", c.Roles.String()),
		slog.String("tournaments", onOff(c.Tournaments)),
		{Key: "tournamentRefresh", Value: c.tournamentRefreshSummary()},
		slog.Int("historyRetentionDays", c.HistoryRetentionDays),
		slog.Group("snapshotFetches", slog.Float64("perSecond", c.SnapshotRatePerSecond), slog.Int("concurrency", c.SnapshotConcurrency)),
		{Key: "discord", Value: discordSummary(c)},
		slog.Group("log", slog.String("level", c.LogLevel), slog.String("format", c.LogFormat), slog.String("accessLog", onOff(c.AccessLog))),
		slog.Int("gcPercent", c.GCPercent),
		slog.Int64("memoryLimitMiB", c.MemoryLimit>>20),
		slog.Duration("shutdownTimeout", c.ShutdownTimeout),
	}
}

// textValue is v as the text table shows it: a group as key=value pairs.
func textValue(v slog.Value) string {
	if v.Kind() != slog.KindGroup {
		return v.String()
	}
	parts := make([]string, 0, len(v.Group()))
	for _, a := range v.Group() {
		parts = append(parts, a.Key+"="+textValue(a.Value))
	}
	return strings.Join(parts, " ")
}

// spacedWords turns a camelCase key into lower-case words: "upstreamTimeout"
// reads "upstream timeout".
func spacedWords(key string) string {
	var b strings.Builder
	for _, r := range key {
		if unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
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

func discordSummary(c config) slog.Value {
	if c.DiscordToken == "" {
		return slog.StringValue("off (CROWNS_DISCORD_TOKEN unset)")
	}
	if !c.Roles.Bot {
		return slog.StringValue("off (role bot not selected)")
	}
	return slog.GroupValue(slog.String("token", mask(c.DiscordToken)), slog.String("guild", c.DiscordGuildID),
		slog.String("keyChannel", c.DiscordKeyChannelID), slog.String("logChannel", orNone(c.DiscordLogChannelID)),
		slog.String("prefix", c.DiscordPrefix))
}
