package main

import (
	"context"
	"fmt"
)

// runServe runs the roles selected by CROWNS_ROLES until ctx ends.
func runServe(ctx context.Context, env cli, args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(env.stderr, "crowns serve: takes no arguments; configure it with CROWNS_* variables")
		return exitUsage
	}
	cfg, log, ok := setup(env)
	if !ok {
		return exitUsage
	}
	cfg.print(env.stderr)
	store, err := openDatabase(ctx, cfg, log)
	if err != nil {
		log.Error("cannot start", "error", err)
		return exitFailure
	}
	defer store.Close()
	<-ctx.Done()
	return exitOK
}
