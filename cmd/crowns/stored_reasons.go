package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/internal/outage"
	"github.com/crownsdev/crowns/models"
)

// reasonRedactor rewrites the stored reasons that hold a key
// (keys.Service).
type reasonRedactor interface {
	RedactStoredReasons(ctx context.Context) (int, error)
}

// storedReasonsRetry spaces the tries of redactStoredReasons while the
// database cannot answer.
func storedReasonsRetry() backoff.Policy {
	return backoff.Policy{First: time.Second, Max: time.Minute}
}

// redactStoredReasons rewrites, once, the stored reasons that releases
// before their redaction may have stored with a key in them (see
// keys.Service.RedactStoredReasons), and logs how many it rewrote when it
// rewrote any. While the database cannot answer it tries again, spaced by
// retry, until ctx ends; any other failure is logged and left to the next
// start: the rows can wait, and the process never fails for them. It
// reports whether the rewrite was done.
func redactStoredReasons(ctx context.Context, redactor reasonRedactor, log *slog.Logger, clock models.Clock, retry backoff.Policy) bool {
	failures := outage.New(outage.Config{Logger: log, Now: clock.Now,
		Failing:   "cannot redact the keys in stored reasons: trying again",
		Recovered: "redacting the keys in stored reasons again"})
	total := 0
	defer func() {
		if total > 0 {
			log.Info("redacted the keys in stored reasons", "rewritten", total)
		}
	}()
	for attempt := 1; ; attempt++ {
		rewritten, err := redactor.RedactStoredReasons(ctx)
		total += rewritten
		switch {
		case err == nil:
			failures.Succeeded(ctx)
			return true
		case ctx.Err() != nil:
			return false
		case !errors.Is(err, models.ErrUnavailable):
			log.Error("cannot redact the keys in stored reasons: left for the next start", "error", err)
			return false
		}
		failures.Failed(ctx, err, "attempt", attempt)
		if !backoff.Wait(ctx, retry.Delay(attempt)) {
			return false
		}
	}
}
