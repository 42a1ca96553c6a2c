package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// gormLogger forwards GORM's errors and slow queries to slog, never the
// query arguments (they may carry key digests); the failures of an
// unavailable database go to DEBUG, since their callers log them.
type gormLogger struct {
	log  *slog.Logger
	slow time.Duration
}

func newGormLogger(log *slog.Logger) logger.Interface {
	return &gormLogger{log: log, slow: 500 * time.Millisecond}
}

func (l *gormLogger) LogMode(logger.LogLevel) logger.Interface { return l }

func (l *gormLogger) Info(ctx context.Context, msg string, args ...any) {
	l.log.DebugContext(ctx, fmt.Sprintf(msg, args...), "component", "gorm")
}

func (l *gormLogger) Warn(ctx context.Context, msg string, args ...any) {
	l.log.WarnContext(ctx, fmt.Sprintf(msg, args...), "component", "gorm")
}

func (l *gormLogger) Error(ctx context.Context, msg string, args ...any) {
	l.log.ErrorContext(ctx, fmt.Sprintf(msg, args...), "component", "gorm")
}

func (l *gormLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	elapsed := time.Since(begin)
	switch {
	case err != nil && !errors.Is(err, gorm.ErrRecordNotFound) && !errors.Is(err, context.Canceled):
		// Every store method returns its error, translated, to a caller
		// that logs it with what it was doing, or answers a request with
		// it (logged there); an unavailable database is that caller's
		// story, retold here without context at every query of every
		// loop, so it is only for DEBUG. Other errors (a wrong query,
		// a constraint) keep their line here, where the SQL is known.
		level := slog.LevelWarn
		if isUnavailable(err) {
			level = slog.LevelDebug
		}
		l.log.Log(ctx, level, "database query failed", "component", "gorm",
			"elapsed", elapsed, "error", err)
	case elapsed > l.slow:
		sqlText, rows := fc()
		l.log.WarnContext(ctx, "slow database query", "component", "gorm",
			"elapsed", elapsed, "rows", rows, "sql", statementOnly(sqlText))
	}
}

// statementOnly keeps the head of a logged statement, up to its first
// WHERE, SET or VALUES: GORM renders argument values inline, and values
// (digests, names) do not belong in logs.
func statementOnly(sqlText string) string {
	cut := len(sqlText)
	for _, word := range []string{" WHERE ", " SET ", " VALUES ", " VALUES("} {
		if i := strings.Index(strings.ToUpper(sqlText), word); i >= 0 && i < cut {
			cut = i
		}
	}
	if cut > 160 {
		cut = 160
	}
	return sqlText[:cut]
}
