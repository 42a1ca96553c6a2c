package api

import (
	"time"

	"github.com/gofiber/fiber/v2"
)

// DefaultGameCallsPerKey is the game-API calls a second one developer key
// may cause when Config.GameCallsPerKey is zero.
const DefaultGameCallsPerKey = 1

// gameCallBurst is the burst of a key's game-API budget, in seconds of its
// rate: a minute's worth, enough to look up a whole clan's members at once.
const gameCallBurst = time.Minute

// gameCallOf is what a request asks before its answer is produced by the
// game API (an answer not in the response cache): one call of its key's
// budget of game-API calls, so that a few keys cannot spend the quota the
// game API gives all of Crowns. Past the budget the request is answered
// 429; answers from the cache never count. A request without a verified
// key (none reaches here) is not charged.
func (s *Server) gameCallOf(c *fiber.Ctx, now time.Time) func() error {
	identity, ok := identityOf(c)
	if !ok {
		return nil
	}
	return func() error {
		if d := s.gameCalls.take(identity.KeyID, now); !d.allowed {
			s.metrics.refusedBy(limitGameCalls)
			return &rateLimitedError{retryAfter: d.retryAfter}
		}
		return nil
	}
}
