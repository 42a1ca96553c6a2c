package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Start serves w on addr ("127.0.0.1:0" picks a free port) until stop is
// called or ctx ends. baseURL is the world's API root, ending in /v1, for
// an upstream client; stop shuts the server down gracefully within its
// context's deadline.
func Start(ctx context.Context, w *World, addr string) (baseURL string, stop func(context.Context) error, err error) {
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("sandbox: listen on %s: %w", addr, err)
	}
	server := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = server.Serve(listener) }()
	unwatch := context.AfterFunc(ctx, func() { _ = server.Close() })
	stop = func(shutdownCtx context.Context) error {
		unwatch()
		if err := server.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("sandbox: shut down: %w", err)
		}
		return nil
	}
	return "http://" + listener.Addr().String() + "/v1", stop, nil
}
