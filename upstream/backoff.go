package upstream

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// backoffFor is the wait after the given failed attempt of a call:
// backoffDelay from Backoff.
func (c *Client) backoffFor(attempt int) time.Duration { return backoffDelay(c.backoff, attempt) }

// backoffDelay is the wait after the given failed attempt: first doubled
// per attempt, capped at 20 times first, with the upper half jittered so
// that concurrent callers do not retry in lockstep. The calls' retries and
// the catalog refresh's both wait by it.
func backoffDelay(first time.Duration, attempt int) time.Duration {
	d := first << min(attempt-1, 20)
	if limit := 20 * first; d > limit || d <= 0 {
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
