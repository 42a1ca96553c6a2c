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

// maxRetryAfter bounds the wait a Retry-After header may advise: a longer
// one (a year, or more seconds than a Duration holds) is read as this, so
// that neither our callers' Retry-After nor a retry is told to wait longer.
const maxRetryAfter = time.Hour

// parseRetryAfter reads a Retry-After header in seconds or as an HTTP date,
// at most maxRetryAfter; 0 when absent, malformed or in the past.
func (c *Client) parseRetryAfter(header string) time.Duration {
	header = strings.TrimSpace(header)
	if header == "" {
		return 0
	}
	if seconds, err := strconv.ParseInt(header, 10, 64); err == nil {
		return time.Duration(min(max(seconds, 0), int64(maxRetryAfter/time.Second))) * time.Second
	}
	if at, err := http.ParseTime(header); err == nil {
		return min(max(at.Sub(c.clock.Now()), 0), maxRetryAfter)
	}
	return 0
}
