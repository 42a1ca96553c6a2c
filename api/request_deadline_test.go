package api

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestRequestDeadlineEndsAtItsDeadline(t *testing.T) {
	d := newRequestDeadline(time.Now().Add(time.Millisecond))
	if deadline, ok := d.Deadline(); !ok || deadline.IsZero() {
		t.Fatal("no deadline")
	}
	derived, cancel := context.WithCancel(d) // waits on Done: the timer starts
	defer cancel()
	<-derived.Done()
	if !errors.Is(d.Err(), context.DeadlineExceeded) || !errors.Is(derived.Err(), context.DeadlineExceeded) {
		t.Fatalf("after the deadline: %v, derived %v", d.Err(), derived.Err())
	}
}

func TestRequestDeadlineWithoutWaiters(t *testing.T) {
	d := newRequestDeadline(time.Now().Add(time.Hour))
	if d.Err() != nil {
		t.Fatal("a fresh context has an error")
	}
	d.end(context.Canceled)
	if !errors.Is(d.Err(), context.Canceled) {
		t.Fatalf("after the request ended: %v", d.Err())
	}
	select {
	case <-d.Done(): // a late waiter finds it done
	default:
		t.Fatal("Done is not closed after the end")
	}
	if d.timer != nil {
		t.Fatal("a timer was started for a context that had ended")
	}

	expired := &requestDeadline{deadline: time.Now().Add(-time.Second)}
	if !errors.Is(expired.Err(), context.DeadlineExceeded) {
		t.Fatalf("past its deadline without waiters: %v", expired.Err())
	}
	<-expired.Done()
}

func TestRequestDeadlineEndStopsTheTimer(t *testing.T) {
	d := newRequestDeadline(time.Now().Add(time.Hour))
	done := d.Done()
	d.end(context.Canceled)
	<-done
	if d.timer.Stop() {
		t.Fatal("the timer was still armed after the request ended")
	}
	if !errors.Is(d.Err(), context.Canceled) {
		t.Fatalf("err = %v", d.Err())
	}
}
