package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// Bounds of a connection the starting server accepted: it sends its
// request head within startingReadTimeout and takes its answer within
// startingWriteTimeout, or it is closed. They also bound how long finish
// waits for the connections taken before the hand-over.
const (
	startingReadTimeout  = 5 * time.Second
	startingWriteTimeout = 5 * time.Second
)

// startingServer answers on the API's listener from the moment it is
// bound until the API app takes it over (see api.StartingHandler), so a
// client meets an answer at once rather than a connection left unanswered
// in the listen queue while serve waits for the database. The listener
// itself stays open throughout: handOver stops the server accepting
// without closing it, and connections arriving meanwhile wait in the
// listen queue for the app.
type startingServer struct {
	server   *http.Server
	listener *heldListener
	// served is closed when the server's Serve has returned: no accept of
	// its is running or to come.
	served chan struct{}
}

// deadlineListener is a listener whose Accept can be cut short without
// closing it (a *net.TCPListener).
type deadlineListener interface {
	net.Listener
	SetDeadline(t time.Time) error
}

// answerWhileStarting serves handler on ln until handOver. It returns nil,
// leaving ln to queue its connections, for a listener whose accept cannot
// be cut short without closing it (net.Listen's TCP listeners can).
func answerWhileStarting(ln net.Listener, handler http.Handler, log *slog.Logger) *startingServer {
	deadlined, ok := ln.(deadlineListener)
	if !ok {
		return nil
	}
	s := &startingServer{
		server: &http.Server{
			Handler:           handler,
			ReadHeaderTimeout: startingReadTimeout,
			ReadTimeout:       startingReadTimeout,
			WriteTimeout:      startingWriteTimeout,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		},
		listener: &heldListener{deadlineListener: deadlined},
		served:   make(chan struct{}),
	}
	go func() {
		defer close(s.served)
		_ = s.server.Serve(s.listener)
	}()
	return s
}

// handOver stops the server taking connections and returns once it no
// longer accepts any, the listener still open and accepting as before
// for its next server. A connection accepted just before is still
// answered (see finish). A TCP listener's deadline can be set unless it
// is closed, and then its server has returned already and its next
// server's accept reports the listener closed.
func (s *startingServer) handOver() {
	s.listener.released.Store(true)
	// Any time in the past ends the accept in progress, and every later
	// one, at once.
	_ = s.listener.SetDeadline(time.Unix(1, 0))
	<-s.served
	_ = s.listener.SetDeadline(time.Time{})
}

// finish waits, after handOver, until the connections the server accepted
// are answered and closed (each answer closes its connection), at most
// until ctx ends; it then closes those left.
func (s *startingServer) finish(ctx context.Context) {
	if err := s.server.Shutdown(ctx); err != nil {
		_ = s.server.Close()
	}
}

// heldListener is the starting server's view of the API's listener: its
// Close, which the server calls when it shuts down, leaves the socket
// open for the app, and once released, a failed accept (cut short by the
// deadline) reads as the listener closed, so the server returns rather
// than trying again.
type heldListener struct {
	deadlineListener
	released atomic.Bool
}

// Accept is the listener's next connection; once released, a failure is
// the end of this listener for the server.
func (l *heldListener) Accept() (net.Conn, error) {
	conn, err := l.deadlineListener.Accept()
	if err != nil && l.released.Load() {
		return nil, &net.OpError{Op: "accept", Net: l.Addr().Network(), Addr: l.Addr(), Err: errors.Join(net.ErrClosed, err)}
	}
	return conn, err
}

// Close leaves the socket open: the listener is the app's next.
func (l *heldListener) Close() error { return nil }
