// Package outage is the one way Crowns logs a failure that repeats: a
// background loop (the clan change listener, the key-event sync, the
// usage flush, the replica heartbeat, the scheduler's ticks, the bot's
// audit poll) that tries again and again while a dependency is down
// would otherwise write a line per attempt, thousands an hour.
//
// A Log writes the first failure of a run of failures, a reminder while
// it lasts (at most once per interval, with how long it has lasted and
// how many attempts failed), and one line when the loop succeeds again
// (with the same two numbers). The failures between are logged at DEBUG,
// so nothing about them is lost to an operator who asks for it.
package outage

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// DefaultReminderInterval is the least time between two reminders of a
// failure that lasts.
const DefaultReminderInterval = time.Minute

// Config says what a Log writes and where.
type Config struct {
	// Logger receives the lines; nil discards them.
	Logger *slog.Logger
	// Now tells the time (the caller's injected clock); nil is time.Now.
	Now func() time.Time
	// Failing is the message of the first failure and of the reminders.
	Failing string
	// Recovered is the message of the first success after failures,
	// logged at INFO.
	Recovered string
	// Level is the level of the first failure and of the reminders; nil
	// is WARN.
	Level slog.Leveler
	// ReminderInterval is the least time between reminders; zero is
	// DefaultReminderInterval.
	ReminderInterval time.Duration
}

// Log follows the failures of one loop. It is safe for concurrent use,
// though it is meant for one loop: every Failed and Succeeded counts.
type Log struct {
	cfg Config

	mu sync.Mutex
	// failed counts the failures since the last success; since is the
	// time of the first of them, reminded the time of the last line
	// written about them.
	failed          int
	since, reminded time.Time
}

// New returns a Log of cfg, with its defaults filled in.
func New(cfg Config) *Log {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Level == nil {
		cfg.Level = slog.LevelWarn
	}
	if cfg.ReminderInterval <= 0 {
		cfg.ReminderInterval = DefaultReminderInterval
	}
	return &Log{cfg: cfg}
}

// Failed records a failed attempt with its error; args are further
// attributes of the line (slog's key-value pairs). The first failure
// after a success is logged at the configured level; a later one too when
// the last line about this run is at least the reminder interval old,
// with failingFor and failedAttempts; the others at DEBUG.
func (l *Log) Failed(ctx context.Context, err error, args ...any) {
	l.mu.Lock()
	now := l.cfg.Now()
	l.failed++
	failed, since := l.failed, l.since
	level := slog.LevelDebug
	switch {
	case failed == 1:
		l.since, l.reminded, since = now, now, now
		level = l.cfg.Level.Level()
	case now.Sub(l.reminded) >= l.cfg.ReminderInterval:
		l.reminded = now
		level = l.cfg.Level.Level()
	}
	l.mu.Unlock()
	attrs := append([]any{"error", err}, args...)
	if failed > 1 {
		attrs = append(attrs, "failingFor", now.Sub(since), "failedAttempts", failed)
	}
	l.cfg.Logger.Log(ctx, level, l.cfg.Failing, attrs...)
}

// Succeeded records a successful attempt. After failures it logs the
// recovery at INFO, with how long the failures lasted (failedFor) and
// how many attempts failed (failedAttempts), and starts over.
func (l *Log) Succeeded(ctx context.Context) {
	l.mu.Lock()
	failed, since := l.failed, l.since
	if failed == 0 {
		l.mu.Unlock()
		return
	}
	l.failed = 0
	now := l.cfg.Now()
	l.mu.Unlock()
	l.cfg.Logger.InfoContext(ctx, l.cfg.Recovered, "failedFor", now.Sub(since), "failedAttempts", failed)
}

// Outcome records the outcome of an attempt of a loop that runs until ctx
// ends: Succeeded when err is nil, Failed when it is not, and nothing for
// a failure once ctx ended (the loop stopping is no outage).
func (l *Log) Outcome(ctx context.Context, err error) {
	switch {
	case err == nil:
		l.Succeeded(ctx)
	case ctx.Err() == nil:
		l.Failed(ctx, err)
	}
}
