package scheduler

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/crownsdev/crowns/models"
)

// retryDelay is the wait before the next try of a job that failed its
// attempt-th try: BackoffMin doubled per earlier attempt, at most
// BackoffMax, jittered down by up to half so replicas retrying a shared
// outage spread out. An upstream that said when to come back is not asked
// sooner (still at most BackoffMax).
func (c Config) retryDelay(attempt int, cause error) time.Duration {
	delay := c.BackoffMin
	for i := 1; i < attempt && delay < c.BackoffMax; i++ {
		delay *= 2
	}
	delay = min(delay, c.BackoffMax)
	delay -= time.Duration(rand.Int64N(int64(delay)/2 + 1))
	var unavailable *models.UnavailableError
	if errors.As(cause, &unavailable) && unavailable.RetryAfter > delay {
		delay = min(unavailable.RetryAfter, c.BackoffMax)
	}
	return delay
}
