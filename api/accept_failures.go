package api

import (
	"errors"
	"syscall"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
)

// acceptRetry is the wait before accepting again after accepts failed in
// a row for want of a resource (see outOfResources): from 5 ms, doubled
// per failure, at most a second, as Go's own HTTP server waits.
var acceptRetry = backoff.Policy{First: 5 * time.Millisecond, Max: time.Second}

// outOfResources reports whether an accept failed for a resource that
// comes back (the process's or the system's open files, the kernel's
// buffers or memory) or for a connection that broke off before it was
// taken. fasthttp takes every accept error but a timeout as the end of
// its listener and stops serving for good: a burst of connections past
// the open-file limit would have ended the API, and with it the process.
func outOfResources(err error) bool {
	for _, transient := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET} {
		if errors.Is(err, transient) {
			return true
		}
	}
	return false
}
