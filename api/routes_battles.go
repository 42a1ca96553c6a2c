package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/crownsdev/crowns/models/legacy"
	"github.com/gofiber/fiber/v2"
)

// handleBattles answers GET /player/:tag/battles: the player's most recent
// battles, newest first, from the game upstream through the response cache.
func (s *Server) handleBattles(c *fiber.Ctx) error {
	tag, err := transientPathTag(c, "tag")
	if err != nil {
		return err
	}
	now := s.requestNow(c)
	var buf [64]byte
	key := battlesCacheKey(buf[:0], tag)
	if answer, hit := s.cache.get(key, now); hit {
		s.metrics.cacheLookup(cacheBattles, true)
		return s.sendAnswer(c, answer, true, string(key))
	}
	tag = strings.Clone(tag)
	keyString := string(key)
	answer, hit, err := s.cache.fetch(s.requestCtx(c), now, keyString, s.cfg.RequestTimeout, s.gameCallOf(c, now),
		func(ctx context.Context) (*cachedAnswer, error) {
			battles, err := s.deps.Game.PlayerBattles(ctx, tag)
			if err != nil {
				return nil, err
			}
			if battles == nil {
				battles = []legacy.Battle{}
			}
			body, err := json.Marshal(battles)
			if err != nil {
				return nil, fmt.Errorf("encode battles: %w", err)
			}
			// A player who has not played since the answer's lifetime
			// ended gets the answer that was, compressed and packed forms
			// and all (see renewedAnswer).
			return renewedAnswer(s.cache.expired(keyString), body), nil
		})
	s.metrics.cacheLookup(cacheBattles, hit)
	if err != nil {
		return err
	}
	return s.sendAnswer(c, answer, hit, keyString)
}

// battlesCacheKey appends the name of the cached battles of a player to
// dst.
func battlesCacheKey(dst []byte, tag string) []byte {
	return append(append(append(dst, "player/"...), tag...), "/battles"...)
}
