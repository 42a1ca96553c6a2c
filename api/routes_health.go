package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// readinessTimeout bounds the database check of /readyz.
const readinessTimeout = 2 * time.Second

type healthAnswer struct {
	Status string `json:"status"`
}

// handleHealthz answers while the process is alive.
func (s *Server) handleHealthz(c *fiber.Ctx) error {
	return s.sendJSON(c, healthAnswer{Status: "ok"})
}

// handleReadyz answers 200 when the database answers, 503 otherwise.
func (s *Server) handleReadyz(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(s.databaseCtx(c), readinessTimeout)
	defer cancel()
	if err := s.deps.Health.Ping(ctx); err != nil {
		return models.Unavailable("database", 0, err)
	}
	return s.sendJSON(c, healthAnswer{Status: "ready"})
}
