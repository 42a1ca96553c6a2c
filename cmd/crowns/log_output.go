package main

import (
	"log/slog"

	"github.com/crownsdev/crowns/internal/logbuffer"
)

// newBufferedLogger is the logger of a long-running command: cfg's format
// and level over out.
func newBufferedLogger(out *logbuffer.Output, cfg config) *slog.Logger {
	return slog.New(logbuffer.Handler(logHandler(out, cfg), out))
}
