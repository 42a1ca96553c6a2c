package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// shutdownGrace bounds the graceful shutdown that the end of Start's
// context triggers.
const shutdownGrace = 5 * time.Second

// Start serves w on addr ("127.0.0.1:0" picks a free port) until stop is
// called or ctx ends. baseURL is the world's API root, ending in /v1, for
// an upstream client. stop shuts the server down gracefully, letting
// requests in flight finish within its context's deadline; the end of ctx
// does the same within shutdownGrace.
func Start(ctx context.Context, w *World, addr string) (baseURL string, stop func(context.Context) error, err error) {
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: listen on %s: %w", addr, err)
	}
	server := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = server.Serve(listener) }()
	unwatch := context.AfterFunc(ctx, func() {
		graceCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		_ = server.Shutdown(graceCtx)
	})
	stop = func(shutdownCtx context.Context) error {
		unwatch()
		if err := server.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("sandbox: shut down: %w", err)
		}
		return nil
	}
	return "http://" + listener.Addr().String() + "/v1", stop, nil
}
