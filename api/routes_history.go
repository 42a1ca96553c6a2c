package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// Bounds of the history window: today plus that many previous days.
const (
	historyDaysMin = 0
	historyDaysMax = 365
	historyDaysDef = 7
)

// handleHistory answers GET /clan/:tag/history.
func (s *Server) handleHistory(c *fiber.Ctx) error {
	if _, _, err := parseHistoryRequest(c); err != nil {
		return err
	}
	return models.ErrNotTracked
}

// handleWeeklyHistory answers GET /clan/:tag/history/weekly.
func (s *Server) handleWeeklyHistory(c *fiber.Ctx) error {
	if _, _, err := parseHistoryRequest(c); err != nil {
		return err
	}
	return models.ErrNotTracked
}

// parseHistoryRequest validates the tag and the days window of a history
// request.
func parseHistoryRequest(c *fiber.Ctx) (tag string, days int, err error) {
	if tag, err = pathTag(c, "tag"); err != nil {
		return "", 0, err
	}
	if days, _, err = queryInt(c, "days", historyDaysDef, historyDaysMin, historyDaysMax); err != nil {
		return "", 0, err
	}
	return tag, days, nil
}
