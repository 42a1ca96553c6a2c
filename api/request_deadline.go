package api

import (
	"context"
	"sync"
	"time"
)

// requestDeadline is the context of a request: done at its deadline, or
// when the request ends. The timer behind the deadline starts only when
// someone waits on Done: an answer from the caches never does, and costs
// no timer (context.WithTimeout arms one per request).
type requestDeadline struct {
	deadline time.Time

	mu    sync.Mutex
	done  chan struct{}
	err   error
	timer *time.Timer
}

func newRequestDeadline(deadline time.Time) *requestDeadline {
	return &requestDeadline{deadline: deadline}
}

// Deadline is when the request's time is up.
func (d *requestDeadline) Deadline() (time.Time, bool) { return d.deadline, true }

// Value carries nothing.
func (d *requestDeadline) Value(any) any { return nil }

// Done is closed at the deadline or when the request ends; the first call
// starts the timer.
func (d *requestDeadline) Done() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done == nil {
		d.done = make(chan struct{})
		if d.err != nil {
			close(d.done)
		} else {
			d.timer = time.AfterFunc(time.Until(d.deadline), func() { d.end(context.DeadlineExceeded) })
		}
	}
	return d.done
}

// Err is context.DeadlineExceeded once the deadline has passed,
// context.Canceled once the request has ended, nil before.
func (d *requestDeadline) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err == nil && !time.Now().Before(d.deadline) {
		d.endLocked(context.DeadlineExceeded)
	}
	return d.err
}

// end finishes the context with err, unless it is finished already.
func (d *requestDeadline) end(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.endLocked(err)
}

func (d *requestDeadline) endLocked(err error) {
	if d.err != nil {
		return
	}
	d.err = err
	if d.done != nil {
		close(d.done)
	}
	if d.timer != nil {
		d.timer.Stop()
	}
}
