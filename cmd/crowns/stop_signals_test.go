package main

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestStopSignals: the first SIGINT or SIGTERM ends stop alone, the second
// ends hurry too.
func TestStopSignals(t *testing.T) {
	stop, hurry, release := stopSignals()
	defer release()
	ended := func(ctx context.Context) bool {
		select {
		case <-ctx.Done():
			return true
		case <-time.After(30 * time.Second): // a guard against hanging, not a bound
			return false
		}
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if !ended(stop) {
		t.Fatal("the first signal did not end stop")
	}
	if hurry.Err() != nil {
		t.Fatal("the first signal ended hurry")
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if !ended(hurry) {
		t.Fatal("the second signal did not end hurry")
	}
}
