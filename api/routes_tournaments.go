package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// tournamentList is one of the /tournaments/<name> lists.
type tournamentList struct {
	name string
}

// tournamentLists names the tournament lists of the contract.
func tournamentLists() []tournamentList {
	return []tournamentList{{"known"}, {"1k"}, {"full"}, {"open"}, {"inprep"}, {"joinable"}}
}

// tournamentsSwitch answers 501 on every tournament route while
// tournaments are switched off.
func (s *Server) tournamentsSwitch(c *fiber.Ctx) error {
	if !s.cfg.Tournaments {
		return models.ErrNotImplemented
	}
	return c.Next()
}

// handleTournaments answers GET /tournament/:tags.
func (s *Server) handleTournaments(c *fiber.Ctx) error {
	return models.ErrNotImplemented
}

// tournamentListHandler answers GET /tournaments/<list>.
func (s *Server) tournamentListHandler(list tournamentList) fiber.Handler {
	return func(c *fiber.Ctx) error {
		return models.ErrNotImplemented
	}
}
