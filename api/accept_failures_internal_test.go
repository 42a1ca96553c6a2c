package api

import (
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/internal/outage"
)

// outOfFilesListener fails every accept as the kernel does when the
// process has no file left to open, and tells each on accepted.
type outOfFilesListener struct {
	net.Listener
	accepted chan struct{}
}

func (l *outOfFilesListener) Accept() (net.Conn, error) {
	l.accepted <- struct{}{}
	return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
}

// TestClosingEndsTheWaitBetweenFailedAccepts: a listener waiting to
// accept again after a failure for want of open files returns the closed
// listener's error as soon as it is closed, so that the server stops at
// Shutdown rather than after the wait (up to a second).
func TestClosingEndsTheWaitBetweenFailedAccepts(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	failing := &outOfFilesListener{Listener: tcp, accepted: make(chan struct{}, 1)}
	ln := newConnectionLimit(1, nil, []byte(`{}`), newRequestIDs()).listener(failing, outage.New(outage.Config{}))
	ln.retry = backoff.Policy{First: time.Hour}
	returned := make(chan error, 1)
	go func() {
		_, err := ln.Accept()
		returned <- err
	}()
	<-failing.accepted
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-returned:
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Accept returned %v, want the closed listener's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Accept still waited to try again after Close")
	}
}
