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

// handleHistory answers GET /clan/:tag/history: the 4-hourly snapshots of
// a tracked clan.
func (s *Server) handleHistory(c *fiber.Ctx) error {
	return s.sendHistory(c, models.SnapshotFourHourly)
}

// handleWeeklyHistory answers GET /clan/:tag/history/weekly: the Monday
// 23:00 snapshots of a tracked clan with weekly collection.
func (s *Server) handleWeeklyHistory(c *fiber.Ctx) error {
	return s.sendHistory(c, models.SnapshotWeekly)
}

// sendHistory answers a history request of kind: today (UTC) and the
// requested number of previous days, as an object keyed by slot time.
func (s *Server) sendHistory(c *fiber.Ctx, kind models.SnapshotKind) error {
	tag, days, err := parseHistoryRequest(c)
	if err != nil {
		return err
	}
	from, to := models.HistoryWindow(s.clock.Now(), days)
	history, err := s.deps.History.ClanHistory(c.UserContext(), tag, kind, from, to)
	if err != nil {
		return err
	}
	return sendJSON(c, history)
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
