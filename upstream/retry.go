package upstream

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
)

// retryPolicy is the wait between tries of one call: first doubled per
// failed attempt, at most 20 times first.
func retryPolicy(first time.Duration) backoff.Policy {
	return backoff.Policy{First: first, Max: 20 * first}
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
