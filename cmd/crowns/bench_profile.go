package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startCPUProfile profiles the CPU into path until the returned function
// is called; nothing when path is empty.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// writeHeapProfile writes the live heap (after a collection) to path;
// nothing when path is empty.
func writeHeapProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	return nil
}

// Profile label values of the bench's parts: a CPU profile taken with
// --cpuprofile splits by them (go tool pprof -tagfocus part=crowns).
const (
	partCrowns = "crowns"
	partBare   = "bare"
	partLoad   = "load"
)

// asPart runs fn with the profile label part=name; goroutines fn starts
// (servers' workers, the load's connections) carry the label too.
func asPart(ctx context.Context, name string, fn func(context.Context)) {
	pprof.Do(ctx, pprof.Labels("part", name), fn)
}
