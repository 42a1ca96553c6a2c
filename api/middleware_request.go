package api

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/crownsdev/crowns/api/internal/accesslog"
	"github.com/crownsdev/crowns/keys"
)

// localRequest is the Locals key of a request's requestState.
const localRequest = "crowns.request"

// headerRequestID carries the request id both ways.
const headerRequestID = "X-Request-Id"

// requestState is what the middleware learns of a request: its id and,
// once authenticated, whose key it carries. One per request, reused from
// a pool: nothing may keep it past the request.
type requestState struct {
	// id is the request id, in idBuf.
	id            []byte
	idBuf         [maxRequestIDLength]byte
	identity      keys.Identity
	authenticated bool
	// keyed tells that the request reached a route that takes a key: its
	// answer, whatever it is, belongs to that key.
	keyed bool
	// start is when the server began to handle the request (requestStart).
	start time.Time
	// now is the server clock's time of the request, read once on first
	// use (see Server.requestNow); zero before.
	now time.Time
	// ctx is the request's context, made on first use (see
	// Server.requestCtx); nil before. An answer from the caches never
	// needs one.
	ctx       context.Context
	cancelCtx context.CancelFunc
	// dbCtx is the request's context for database work, made on first
	// use (see Server.databaseCtx); nil before.
	dbCtx    context.Context
	cancelDB context.CancelFunc
	// shape is what the route and the query ask of the answer's shape
	// (see answerShape).
	shape answerShape
	// route is the matched route's bound metrics (see Server.get); nil
	// before a route matches, or without metrics.
	route *routeMetrics
	// pattern is the matched route's pattern, with metrics or usage
	// counting on; "" before a route matches.
	pattern string
}

// maxRequestIDLength bounds a caller's request id; ours are shorter.
const maxRequestIDLength = 64

// requestStates pools requestStates, so that an answer from the caches
// allocates nothing (TestCachedAnswersAllocateNothing holds it to that:
// every request makes one).
type requestStates struct{ pool sync.Pool }

func (p *requestStates) get() *requestState {
	if st, ok := p.pool.Get().(*requestState); ok {
		return st
	}
	return &requestState{}
}

func (p *requestStates) put(st *requestState) {
	st.id, st.identity, st.authenticated, st.keyed, st.start, st.now = nil, keys.Identity{}, false, false, time.Time{}, time.Time{}
	st.ctx, st.cancelCtx, st.dbCtx, st.cancelDB = nil, nil, nil, nil
	st.shape, st.route, st.pattern = answerShape{}, nil, ""
	p.pool.Put(st)
}

// requestIDs hands out request ids: a random prefix per server, then the
// connection's number in the process and the request's number on it, so
// ids are unique within the process and across restarts with neither a
// system call nor a counter shared by all requests (whose cache line
// would travel between cores on every request).
type requestIDs struct {
	prefix string
	// unseen numbers the requests the HTTP server refuses before they
	// are read whole (see appendUnseenID).
	unseen atomic.Uint64
}

func newRequestIDs() *requestIDs {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return &requestIDs{prefix: hex.EncodeToString(b) + "-"}
}

// appendNewID appends the id of the request of ctx, like "3fa1c09e-2s-1k".
func (r *requestIDs) appendNewID(dst []byte, ctx *fasthttp.RequestCtx) []byte {
	dst = strconv.AppendUint(append(dst, r.prefix...), ctx.ConnID(), 36)
	return strconv.AppendUint(append(dst, '-'), ctx.ConnRequestNum(), 36)
}

// appendUnseenID appends an id for a request the HTTP server refused
// before reading it whole, which has no connection and request numbers
// yet: "3fa1c09e-0-5", the fifth such request. fasthttp numbers
// connections from 1, so these never collide with appendNewID's.
func (r *requestIDs) appendUnseenID(dst []byte) []byte {
	return strconv.AppendUint(append(dst, r.prefix+"0-"...), r.unseen.Add(1), 36)
}

// requestStart is when the server began to handle the request: taken by
// fasthttp's server once it has read the request, or now when the app's
// handler is called without that server (App().Handler() embedded
// elsewhere), whose requests carry no time.
func requestStart(ctx *fasthttp.RequestCtx) time.Time {
	if start := ctx.Time(); !start.IsZero() {
		return start
	}
	return time.Now()
}

// requestContext gives the request an id, a deadline (its context, see
// requestCtx) and an access-log line with route, status, latency and key
// id (never the key itself).
func (s *Server) requestContext(c *fiber.Ctx) error {
	start := requestStart(c.Context())
	st := s.states.get()
	defer s.endRequest(c, st)
	st.start = start
	if incoming := c.Request().Header.Peek(headerRequestID); plainRequestID(incoming) {
		st.id = append(st.idBuf[:0], incoming...)
	} else {
		st.id = s.requestIDs.appendNewID(st.idBuf[:0], c.Context())
	}
	c.Locals(localRequest, st)
	c.Response().Header.SetCanonical(s.headers.requestID, st.id)

	err := nextRecovering(c)
	if err != nil {
		if renderErr := s.handleError(c, err); renderErr != nil {
			return renderErr
		}
	}
	s.finishHeaders(c, st)
	status := c.Response().StatusCode()
	// One reading of the monotonic clock: the end is the start moved on
	// by the time the request took.
	latency := time.Since(start)
	if s.metrics != nil {
		s.metrics.observe(st.route, status, latency)
	}
	s.countUsage(c, st, status)
	level := slog.LevelInfo
	if status >= http.StatusInternalServerError {
		level = slog.LevelWarn
	}
	handler := s.log.Handler()
	ctx := context.Background()
	if (!s.cfg.AccessLog && level < slog.LevelWarn) || !handler.Enabled(ctx, level) {
		return nil
	}
	// The record is built here rather than by Logger.LogAttrs, which would
	// look up the caller's frame for every line; no handler of ours shows
	// it.
	end := start.Add(latency)
	var skipped int64
	if refused(status, st.authenticated) {
		var ok bool
		if ok, skipped = s.refusals.admit(s.requestNow(c)); !ok {
			return nil
		}
	}
	if s.accessLog != nil && level == slog.LevelInfo && skipped == 0 {
		line := accesslog.Line{
			Time: end, RequestID: st.id, Method: methodOf(c), Route: routeOf(c), Status: status, Latency: latency,
			KeyID: st.identity.KeyID, HasKey: st.authenticated,
		}
		if s.accessLog.Write(&line) {
			return nil
		}
	}
	record := slog.NewRecord(end, level, accesslog.Message, 0)
	record.AddAttrs(
		slog.String("requestId", string(st.id)),
		slog.String("method", methodOf(c)),
		slog.String("route", routeOf(c)),
		slog.Int("status", status),
		slog.Duration("latency", latency),
	)
	if st.authenticated {
		record.AddAttrs(slog.Int64("keyId", st.identity.KeyID))
	}
	if skipped > 0 {
		record.AddAttrs(slog.Int64("refusedLinesSkipped", skipped))
	}
	_ = handler.Handle(ctx, record)
	return nil
}

// finishHeaders sets the headers every answer carries, whichever way it
// was made (a handler, the caches, an error, a 304): nosniff on all, and
// on a keyed route's answers the Cache-Control and Vary that keep shared
// caches from serving one key's answer to another.
func (s *Server) finishHeaders(c *fiber.Ctx, st *requestState) {
	header := &c.Response().Header
	header.SetCanonical(s.headers.contentTypeOptions, s.headers.valueNoSniff)
	if st.keyed {
		header.SetCanonical(s.headers.cacheControl, s.headers.valuePrivate)
		header.SetCanonical(s.headers.vary, s.headers.valueKeyedVary)
	}
}

// endRequest ends the request's context, if it has one, and gives its
// state back: the request no longer names it, so that nothing after
// requestContext (Fiber's error handler) can reach the state of another
// request.
func (s *Server) endRequest(c *fiber.Ctx, st *requestState) {
	if st.cancelCtx != nil {
		st.cancelCtx()
	}
	if st.cancelDB != nil {
		st.cancelDB()
	}
	c.Locals(localRequest, nil)
	s.states.put(st)
}

// requestCtx is the request's context: done at the request's deadline
// (RequestTimeout after its start), when it ends, or when Shutdown cuts
// the requests still running. It is made on first use, as most requests
// never need one (VerifyCached, cache hits), so that only a request that
// does I/O arms a timer; every I/O of a request takes it, never
// c.UserContext.
func (s *Server) requestCtx(c *fiber.Ctx) context.Context {
	st := stateOf(c)
	if st == nil {
		return c.UserContext()
	}
	if st.ctx == nil {
		st.ctx, st.cancelCtx = context.WithDeadline(s.requests, st.start.Add(s.cfg.RequestTimeout))
	}
	return st.ctx
}

// databaseCtx is the request's context for database work: like
// requestCtx, but done DatabaseTimeout after the request's start, so that
// a database that does not answer costs a request at most that long
// before its 503 (the game API keeps the whole RequestTimeout).
func (s *Server) databaseCtx(c *fiber.Ctx) context.Context {
	st := stateOf(c)
	if st == nil {
		return c.UserContext()
	}
	if st.dbCtx == nil {
		st.dbCtx, st.cancelDB = context.WithDeadline(s.requests, st.start.Add(s.cfg.DatabaseTimeout))
	}
	return st.dbCtx
}

// plainRequestID tells whether a caller's request id can be taken as
// ours: short and plain, so it can be logged safely, and holding nothing
// that starts like a key (a key put in the wrong header would be logged).
func plainRequestID(raw []byte) bool {
	if len(raw) == 0 || len(raw) > maxRequestIDLength || bytes.Contains(raw, []byte(keys.Prefix)) {
		return false
	}
	for _, r := range raw {
		if r != '-' && r != '_' && r != '.' && (r < '0' || r > '9') && (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// requestNow is the time of the request on the server's clock: read once
// per request, so that the key check, the rate limiter, the caches and
// the handler agree on it and the clock is not asked again by each. On
// the system clock it is the time the server read the request at (the
// server reads the system clock for it anyway), in UTC as the system
// clock gives it.
func (s *Server) requestNow(c *fiber.Ctx) time.Time {
	st := stateOf(c)
	if st == nil {
		return s.clock.Now()
	}
	if st.now.IsZero() {
		if s.systemClock {
			st.now = st.start.UTC()
		} else {
			st.now = s.clock.Now()
		}
	}
	return st.now
}

// stateOf is the request's state; nil outside requestContext.
func stateOf(c *fiber.Ctx) *requestState {
	st, _ := c.Locals(localRequest).(*requestState)
	return st
}

// requestID is the request's id, for the log lines of failures.
func requestID(c *fiber.Ctx) string {
	if st := stateOf(c); st != nil {
		return string(st.id)
	}
	return ""
}

// routeOf names the matched route pattern, or the raw path when no route
// matched (the fallback handler).
func routeOf(c *fiber.Ctx) string {
	if route := c.Route(); route != nil && route.Path != "/" && route.Path != "" {
		return route.Path
	}
	return loggedPath(c)
}

// loggedPath is the request's path as the log names a request no route
// matched: at most 100 bytes of it, with any key in it redacted (a client
// may have put its key in the path by mistake). A path with
// percent-escapes is looked at decoded too, as the router decodes it: a
// key whose characters were escaped ("crw%5F…") is named decoded,
// without the key.
func loggedPath(c *fiber.Ctx) string {
	path := keys.Redact(c.Path())
	if strings.IndexByte(path, '%') >= 0 {
		decoded := string(c.Request().URI().Path())
		if redacted := keys.Redact(decoded); redacted != decoded {
			path = redacted
		}
	}
	if len(path) > 100 {
		path = path[:100]
	}
	return strings.Clone(path)
}

// allowReadOnly answers 405 to any method but GET and HEAD, and on the
// leak-report route to any method but POST.
func (s *Server) allowReadOnly(c *fiber.Ctx) error {
	if isLeakReportPath(c.Path()) {
		if c.Method() == fiber.MethodPost {
			return c.Next()
		}
		return errMethodNotAllowed
	}
	switch c.Method() {
	case fiber.MethodGet, fiber.MethodHead:
		return c.Next()
	}
	return errMethodNotAllowed
}

// nextRecovering is c.Next, a panic of the handlers after it turned into
// a *panicError (see recoverInto).
func nextRecovering(c *fiber.Ctx) (err error) {
	defer recoverInto(&err)
	return c.Next()
}
