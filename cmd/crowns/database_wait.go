package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
)

// databaseStartWait is how crowns serve waits at start for a PostgreSQL
// server that cannot be reached yet (still starting, restarting, out of
// connections): a deployment whose database comes up a little after Crowns
// starts serving, without a crash loop.
type databaseStartWait struct {
	// patience bounds the whole wait.
	patience time.Duration
	// retry is the pause between tries.
	retry backoff.Policy
}

// defaultDatabaseStartWait is the wait crowns serve uses: tries for a
// minute, at most 10 s apart.
func defaultDatabaseStartWait() databaseStartWait {
	return databaseStartWait{patience: time.Minute, retry: backoff.Policy{First: time.Second, Max: 10 * time.Second}}
}

// openDatabaseWhenUp is openDatabase, tried again while a PostgreSQL
// database cannot be reached, for at most wait.patience or until ctx ends
// (a stop signal). Each failed try is logged with when the next one is. A
// refused login, a database that does not exist, a secret that differs or
// anything else that waiting cannot mend fails at once, as does the
// embedded SQLite file.
func openDatabaseWhenUp(ctx context.Context, cfg config, log *slog.Logger, clock models.Clock, wait databaseStartWait) (*store.Store, []byte, error) {
	start := time.Now()
	for failures := 1; ; failures++ {
		db, secret, err := openDatabase(ctx, cfg, log, clock)
		if err == nil || cfg.DatabaseURL == "" || !store.Transient(err) {
			return db, secret, err
		}
		pause := wait.retry.Delay(failures)
		waited := time.Since(start)
		if waited+pause > wait.patience {
			return nil, nil, fmt.Errorf("%w (gave up after trying for %s)", err, waited.Round(time.Second))
		}
		log.Warn("database unreachable at start; trying again", "error", err, "attempt", failures,
			"retryIn", pause.Round(time.Millisecond), "givingUpIn", (wait.patience - waited).Round(time.Second))
		if !backoff.Wait(ctx, pause) {
			return nil, nil, err
		}
	}
}
