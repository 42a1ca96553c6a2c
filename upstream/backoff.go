package upstream

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoffFor is the wait after the given failed attempt: Backoff doubled per
// attempt, capped at 20 times Backoff, with the upper half jittered so that
// concurrent callers do not retry in lockstep.
func (c *Client) backoffFor(attempt int) time.Duration {
	d := c.backoff << min(attempt-1, 20)
	if limit := 20 * c.backoff; d > limit || d <= 0 {
		d = limit
	}
	half := d / 2
	return half + rand.N(half+1)
}

// parseRetryAfter reads a Retry-After header in seconds or as an HTTP date;
// 0 when absent, malformed or in the past.
func (c *Client) parseRetryAfter(header string) time.Duration {
	header = strings.TrimSpace(header)
	if header == "" {
		return 0
	}
	if seconds, err := strconv.Atoi(header); err == nil {
		return max(time.Duration(seconds)*time.Second, 0)
	}
	if at, err := http.ParseTime(header); err == nil {
		return max(at.Sub(c.clock.Now()), 0)
	}
	return 0
}
