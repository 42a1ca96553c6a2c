package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// stopSignals catches SIGINT and SIGTERM. The first ends stop: crowns
// serve shuts down gracefully, draining the requests in flight. The second
// ends hurry: the shutdown stops waiting for requests and cuts those still
// running (background work still finishes its current writes). After it
// the signals are no longer caught, so a third ends the process at once.
// release stops catching them.
func stopSignals() (stop, hurry context.Context, release func()) {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	stop, stopNow := context.WithCancel(context.Background())
	hurry, hurryNow := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		for _, end := range []context.CancelFunc{stopNow, hurryNow} {
			select {
			case <-signals:
				end()
			case <-done:
				return
			}
		}
		signal.Stop(signals)
	}()
	return stop, hurry, func() {
		signal.Stop(signals)
		close(done)
		stopNow()
		hurryNow()
	}
}
