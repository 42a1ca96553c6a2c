package api

import (
	"net/http"
	"sync/atomic"
	"time"
)

// Access lines of refused requests (401, 403, 429, and those the HTTP
// server refuses before any route: 400, 413, 431) are sampled: at most
// refusalLinesPerSecond a second, with bursts of refusalLineBurst, so that
// a flood of made-up keys or of one key past its rate cannot fill a disk.
// The next line written says how many were left out before it.
const (
	refusalLinesPerSecond = 10
	refusalLineBurst      = 100
)

// refusalSampler decides which access lines of refused requests are
// written.
type refusalSampler struct {
	lines   *rateLimiter
	skipped atomic.Int64
}

func newRefusalSampler() *refusalSampler {
	return &refusalSampler{lines: newRateLimiter(refusalLinesPerSecond, refusalLineBurst)}
}

// refused tells whether status is the answer to a refused request.
func refused(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusTooManyRequests
}

// admit tells whether the line of a refused request at now is written;
// when it is, skipped is how many lines were left out since the last one
// written.
func (r *refusalSampler) admit(now time.Time) (ok bool, skipped int64) {
	if !r.lines.take(0, now).allowed {
		r.skipped.Add(1)
		return false, 0
	}
	return true, r.skipped.Swap(0)
}
