package scheduler

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/crownsdev/crowns/internal/outage"
	"github.com/crownsdev/crowns/models"
)

// workerDefaults fills a periodic worker's clock, logger and owner when
// unset: the system clock, a discarding logger, this process's name.
func workerDefaults(clock models.Clock, logger *slog.Logger, owner string) (models.Clock, *slog.Logger, string) {
	return cmp.Or[models.Clock](clock, models.SystemClock{}), cmp.Or(logger, slog.New(slog.DiscardHandler)), cmp.Or(owner, defaultOwner())
}

// tickEvery calls tick at once and then every interval until ctx ends. A
// failed tick is logged at ERROR (unless ctx ended) as package outage
// does — when ticks start failing, a reminder a minute, when one works
// again — and the next one tried; name says whose ticks they are in the
// log. Ticks are background work: their statements are counted apart
// (models.AsBackground).
func tickEvery(ctx context.Context, interval time.Duration, clock models.Clock, log *slog.Logger, name string, tick func(context.Context) error) {
	ctx = models.AsBackground(ctx)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	failing := outage.New(outage.Config{
		Logger:    log,
		Now:       clock.Now,
		Failing:   name + " tick failed; trying again next tick",
		Recovered: name + " ticks again",
		Level:     slog.LevelError,
	})
	for {
		failing.Outcome(ctx, tick(ctx))
		select {
		case <-ctx.Done():
			log.Info(name + " stopped")
			return
		case <-ticker.C:
		}
	}
}
