package scheduler

import (
	"errors"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/models"
)

// retryDelay is the wait before the next try of a job that failed its
// attempt-th try: the house backoff from BackoffMin to BackoffMax, jittered
// so replicas retrying a shared outage spread out. An upstream that said
// when to come back is not asked sooner (still at most BackoffMax).
func (c Config) retryDelay(attempt int, cause error) time.Duration {
	delay := backoff.Policy{First: c.BackoffMin, Max: c.BackoffMax}.Delay(attempt)
	var unavailable *models.UnavailableError
	if errors.As(cause, &unavailable) && unavailable.RetryAfter > delay {
		delay = min(unavailable.RetryAfter, c.BackoffMax)
	}
	return delay
}
