package api

import (
	"context"
	"time"

	"github.com/valyala/fasthttp"
)

// DefaultDrainGrace is how long Shutdown lets open connections end on
// their own before the server closes those still idle (Config.DrainGrace):
// long enough for a client in a loop of requests to send its next one and
// be told to close, short enough not to hold a shutdown back.
const DefaultDrainGrace = time.Second

// drainPoll is how often drain looks whether every connection has closed,
// and cut whether every handler has returned.
const drainPoll = 10 * time.Millisecond

// cutGrace bounds cut's wait for the handlers of the requests it cut:
// their I/O takes the request's context, so they return at once; one that
// does not is left running rather than hold the shutdown back.
const cutGrace = 5 * time.Second

// closeWhileDraining answers with Connection: close once Shutdown has
// begun, so that the client closes the connection after this answer
// instead of sending another request on it, which the server would close
// unread: the server closes each connection after its answer.
func (s *Server) closeWhileDraining(next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		s.running.Add(1)
		defer s.running.Add(-1)
		next(ctx)
		if s.draining.Load() {
			ctx.SetConnectionClose()
		}
	}
}

// cut ends the context of the requests still running, which Shutdown no
// longer waits for (its context ended first), so that their game and
// database calls end at once and they are answered 503, and waits for
// their handlers to return, at most cutGrace. It returns how many were
// running when it cut them.
func (s *Server) cut() int64 {
	running := s.running.Load()
	s.cutRequests()
	deadline := time.NewTimer(cutGrace)
	defer deadline.Stop()
	poll := time.NewTicker(drainPoll)
	defer poll.Stop()
	for s.running.Load() > 0 {
		select {
		case <-deadline.C:
			s.log.Warn("requests still running after their context was cut at shutdown; not waiting for them", "requests", s.running.Load(), "waited", cutGrace)
			return running
		case <-poll.C:
		}
	}
	return running
}

// drain makes every answer from now on close its connection and waits
// until no connection is open, at most Config.DrainGrace or until ctx
// ends. The
// listener still takes connections meanwhile: a client a load balancer
// still sends here is answered, and told to close too. A connection idle
// all that time is closed by the server's own shutdown after it.
func (s *Server) drain(ctx context.Context) {
	s.draining.Store(true)
	deadline := time.NewTimer(s.cfg.DrainGrace)
	defer deadline.Stop()
	poll := time.NewTicker(drainPoll)
	defer poll.Stop()
	for s.connections.openCount() > 0 {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-poll.C:
		}
	}
}
