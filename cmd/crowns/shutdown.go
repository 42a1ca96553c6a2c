package main

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
)

// shutdown stops the parts in order, within one shutdown timeout shared by
// all but the background work (which ends by its own bounds): the API
// stops taking requests and drains those in flight, the metrics server
// stops (a listener bound but not yet served is closed, the starting
// server's last answers finished first), background work
// finishes its current writes (and flushes key use), the sandbox stops,
// the database closes. When hurry ends (a second stop signal) the
// API stops waiting for the requests in flight and cuts them, as at the
// timeout. Each stage the process has says in one line that it is done
// and how long it took; the caller's last line gives the total.
func (n *node) shutdown(hurry context.Context, cfg config, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(hurry, cfg.ShutdownTimeout)
	defer cancel()
	hurried := context.AfterFunc(hurry, func() {
		log.Warn("second stop signal: no longer waiting for requests in flight; a third ends the process at once")
	})
	defer hurried()
	// The durations logged are measured (time.Now's monotonic reading),
	// not the injected clock's time, which tests hold still.
	if n.api != nil {
		log.Info("draining API requests", "timeout", cfg.ShutdownTimeout)
		began := time.Now()
		drained, err := n.api.Shutdown(ctx)
		outcome, err := drainOutcome(err)
		if err != nil {
			log.Warn("API shutdown", "error", err)
		}
		log.Info("API drained", "took", stageTime(time.Since(began)), "outcome", outcome, "requestsCut", drained.CutRequests)
	} else if n.listen != nil {
		if n.starting != nil {
			n.starting.handOver()
			n.starting.finish(ctx)
		}
		_ = n.listen.Close()
	}
	if n.metrics != nil {
		began := time.Now()
		if err := n.metrics.shutdown(ctx); err != nil {
			log.Warn("metrics shutdown", "error", err)
		}
		log.Info("metrics server stopped", "took", stageTime(time.Since(began)))
	} else if n.metricsListen != nil {
		_ = n.metricsListen.Close()
	}
	began := time.Now()
	n.background()
	n.work.Wait()
	if len(n.workNames) > 0 {
		log.Info("background work finished", "took", stageTime(time.Since(began)), "work", strings.Join(n.workNames, ", "))
	}
	if n.game != nil {
		began := time.Now()
		if err := n.game.stop(ctx); err != nil && !errors.Is(err, context.Canceled) {
			log.Warn("sandbox shutdown", "error", err)
		}
		if n.game.world != nil {
			log.Info("sandbox stopped", "took", stageTime(time.Since(began)))
		}
	}
	if n.db != nil {
		began := time.Now()
		if err := n.db.Close(); err != nil {
			log.Warn("database close", "error", err)
		}
		log.Info("database closed", "took", stageTime(time.Since(began)))
	}
}

// drainOutcome says in plain words how the API's drain ended, from the
// error its Shutdown returned; err is what is left of that error to log
// as a failure.
func drainOutcome(shutdownErr error) (outcome string, err error) {
	switch {
	case shutdownErr == nil:
		return "every request answered", nil
	case errors.Is(shutdownErr, context.DeadlineExceeded):
		return "stopped waiting at CROWNS_SHUTDOWN_TIMEOUT", nil
	case errors.Is(shutdownErr, context.Canceled):
		return "stopped waiting at the second stop signal", nil
	}
	return "failed", shutdownErr
}

// stageTime is a measured duration as the shutdown's log shows it: to the
// millisecond, or to the microsecond below 10 ms, where milliseconds would
// mostly say 0s.
func stageTime(d time.Duration) time.Duration {
	if d < 10*time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}
