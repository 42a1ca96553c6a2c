package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Locals keys of per-request values.
const (
	localRequestID = "crowns.requestID"
	localKeyID     = "crowns.keyID"
)

// headerRequestID carries the request id both ways.
const headerRequestID = "X-Request-Id"

// requestContext gives the request an id, a deadline and an access-log
// line with route, status, latency and key id (never the key itself).
func (s *Server) requestContext(c *fiber.Ctx) error {
	start := time.Now()
	id := incomingRequestID(c.Get(headerRequestID))
	if id == "" {
		id = newRequestID()
	}
	c.Locals(localRequestID, id)
	c.Set(headerRequestID, id)

	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.RequestTimeout)
	defer cancel()
	c.SetUserContext(ctx)

	err := c.Next()
	if err != nil {
		if renderErr := s.handleError(c, err); renderErr != nil {
			return renderErr
		}
	}
	status := c.Response().StatusCode()
	level := slog.LevelInfo
	if status >= http.StatusInternalServerError {
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("requestId", id),
		slog.String("method", c.Method()),
		slog.String("route", routeOf(c)),
		slog.Int("status", status),
		slog.Duration("latency", time.Since(start)),
	}
	if keyID, ok := c.Locals(localKeyID).(int64); ok {
		attrs = append(attrs, slog.Int64("keyId", keyID))
	}
	s.log.LogAttrs(ctx, level, "request", attrs...)
	return nil
}

// incomingRequestID accepts a caller's request id when it is short and
// plain, so it can be logged safely.
func incomingRequestID(raw string) string {
	if raw == "" || len(raw) > 64 {
		return ""
	}
	for _, r := range raw {
		if !(r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
			return ""
		}
	}
	return strings.Clone(raw)
}

func newRequestID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func requestID(c *fiber.Ctx) string {
	id, _ := c.Locals(localRequestID).(string)
	return id
}

// routeOf names the matched route pattern, or the raw path when no route
// matched (the fallback handler).
func routeOf(c *fiber.Ctx) string {
	if route := c.Route(); route != nil && route.Path != "/" && route.Path != "" {
		return route.Path
	}
	path := c.Path()
	if len(path) > 100 {
		path = path[:100]
	}
	return strings.Clone(path)
}

// allowReadOnly answers 405 to any method but GET and HEAD.
func (s *Server) allowReadOnly(c *fiber.Ctx) error {
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead:
		return c.Next()
	}
	return errMethodNotAllowed
}
