package api

import (
	"errors"

	"github.com/gofiber/fiber/v2"
)

// trackAnswer is the body of a successful track request.
type trackAnswer struct {
	Success bool `json:"success"`
}

// handleTrack answers GET /clan/:tag/track: start tracking the clan when
// its description carries the configured address, recording which key
// asked. Already tracked clans get the same answer.
func (s *Server) handleTrack(c *fiber.Ctx) error {
	tag, err := pathTag(c, "tag")
	if err != nil {
		return err
	}
	identity, ok := identityOf(c)
	if !ok {
		return errors.New("track request without a verified identity")
	}
	// The game API's answer and the database's writes together within the
	// request's database bound: no answer waits longer on the database.
	if err := s.deps.Tracker.TrackClan(s.databaseCtx(c), tag, identity.KeyID); err != nil {
		return err
	}
	return s.sendJSON(c, trackAnswer{Success: true})
}

// handleTracking answers GET /clan/:tag/tracking from the database alone.
// A clan never tracked answers 200 with false and 0 values.
func (s *Server) handleTracking(c *fiber.Ctx) error {
	tag, err := pathTag(c, "tag")
	if err != nil {
		return err
	}
	status, err := s.deps.History.TrackingStatus(s.databaseCtx(c), tag)
	if err != nil {
		return err
	}
	return s.sendJSON(c, status)
}
