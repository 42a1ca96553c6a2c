package upstream

import (
	"context"
	"log/slog"
)

// summedFailuresKey marks a context whose caller sums up the failures of
// its calls in lines of its own.
type summedFailuresKey struct{}

// CallerSumsUpFailures returns ctx marked so that the calls made with it
// log their failed attempts and failures at DEBUG instead of WARN: for a
// caller that writes one line for many failed calls (the scheduler's
// tick), so that an outage of the game API costs that line, not several
// for each call. Failures logged at ERROR (a refused token, an answer over
// the bound, one that does not decode) stay at ERROR.
func CallerSumsUpFailures(ctx context.Context) context.Context {
	return context.WithValue(ctx, summedFailuresKey{}, true)
}

// failureLevel is the level of a failure line of level for a call made
// with ctx.
func failureLevel(ctx context.Context, level slog.Level) slog.Level {
	if level < slog.LevelError && ctx.Value(summedFailuresKey{}) != nil {
		return slog.LevelDebug
	}
	return level
}
