package api

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// handleBattles answers GET /player/:tag/battles: the player's most recent
// battles, newest first, from the game upstream through the response cache.
func (s *Server) handleBattles(c *fiber.Ctx) error {
	tag, err := pathTag(c, "tag")
	if err != nil {
		return err
	}
	answer, hit, err := s.cache.fetch(c.UserContext(), "player/"+tag+"/battles", s.cfg.RequestTimeout,
		func(ctx context.Context) (*cachedAnswer, error) {
			battles, err := s.deps.Game.PlayerBattles(ctx, tag)
			if err != nil {
				return nil, err
			}
			if battles == nil {
				battles = []models.Battle{}
			}
			body, err := json.Marshal(battles)
			if err != nil {
				return nil, fmt.Errorf("encode battles: %w", err)
			}
			return newCachedAnswer(body), nil
		})
	if err != nil {
		return err
	}
	return s.sendAnswer(c, answer, hit)
}
