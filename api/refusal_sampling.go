package api

import (
	"net/http"
	"sync/atomic"
	"time"
)

// Access lines of refused requests are sampled: those of 401, 403 and
// 429, of any other 4xx of a request that brought no valid key (an
// unknown path, a method we do not serve, a malformed query), and of the
// requests the HTTP server refuses before any route (400, 413, 431). At
// most refusalLinesPerSecond a second are written, with bursts of
// refusalLineBurst, so that a flood of made-up keys, of one key past its
// rate or of junk requests cannot fill a disk. The next line written says
// how many were left out before it.
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

// refused tells whether the answer status to a request, which brought a
// valid key or not (authenticated), is a refusal whose line is sampled.
func refused(status int, authenticated bool) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests:
		return true
	}
	return !authenticated && status >= http.StatusBadRequest && status < http.StatusInternalServerError
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
