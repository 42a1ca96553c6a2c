package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/crownsdev/crowns/api/internal/accesslog"
	"github.com/crownsdev/crowns/models"
)

// Error texts of the contract.
const (
	textPathNotFound     = "Path not found"
	textMethodNotAllowed = "Method not allowed"
	textMissingKey       = "Unauthorized; missing authentication key"
	textUnknownKey       = "Unauthorized; unknown token"
	textKeyDisabled      = "Unauthorized; key disabled: its owner is no longer a member of the community server"
	textKeyBlacklisted   = "Forbidden; key blacklisted"
	textNotFound         = "Not found"
	textNotImplemented   = "Not Implemented"
	textRateLimited      = "Rate limit exceeded"
	textUnavailable      = "Temporarily unavailable"
	textInternal         = "Internal server error"
	textBadSignature     = "Unauthorized; missing or invalid signature"
)

// defaultRetryAfter is advised when a dependency is down and said nothing
// about when to come back.
const defaultRetryAfter = 10 * time.Second

// errorBody is the JSON body of every non-2xx answer.
type errorBody struct {
	Error      bool   `json:"error"`
	StatusCode int    `json:"statusCode"`
	StatusText string `json:"statusText"`
	Info       string `json:"info"`
	EventID    string `json:"eventId,omitempty"`
}

// errorAnswer is what an error becomes in the answer: its status and text.
type errorAnswer struct {
	status     int
	text       string
	retryAfter time.Duration
}

// errPathNotFound and errMethodNotAllowed are returned by the fallback and
// method-filter handlers.
var (
	errPathNotFound     = fiber.NewError(http.StatusNotFound, textPathNotFound)
	errMethodNotAllowed = fiber.NewError(http.StatusMethodNotAllowed, textMethodNotAllowed)
)

// rateLimitedError is the answer of the rate limiter; retryAfter is how long
// until a token is available.
type rateLimitedError struct {
	retryAfter time.Duration
}

func (e *rateLimitedError) Error() string { return "rate limit exceeded" }

// classify maps an error to its answer: the one table of the package.
// ok is false for an error no rule knows, which becomes a 500.
func classify(err error) (answer errorAnswer, ok bool) {
	var (
		validation  *models.ValidationError
		unavailable *models.UnavailableError
		addressErr  *models.AddressMissingError
		limited     *rateLimitedError
		fiberErr    *fiber.Error
	)
	switch {
	case errors.As(err, &limited):
		return errorAnswer{status: http.StatusTooManyRequests, text: textRateLimited, retryAfter: limited.retryAfter}, true
	case errors.Is(err, errLeakReportUnsigned):
		return errorAnswer{status: http.StatusUnauthorized, text: textBadSignature}, true
	case errors.Is(err, models.ErrMissingKey):
		return errorAnswer{status: http.StatusUnauthorized, text: textMissingKey}, true
	case errors.Is(err, models.ErrUnknownKey):
		return errorAnswer{status: http.StatusUnauthorized, text: textUnknownKey}, true
	case errors.Is(err, models.ErrKeyDisabled):
		return errorAnswer{status: http.StatusUnauthorized, text: textKeyDisabled}, true
	case errors.Is(err, models.ErrKeyBlacklisted):
		return errorAnswer{status: http.StatusForbidden, text: textKeyBlacklisted}, true
	case errors.As(err, &validation):
		return errorAnswer{status: http.StatusBadRequest, text: validation.Message}, true
	case errors.Is(err, models.ErrNotFound):
		return errorAnswer{status: http.StatusNotFound, text: textNotFound}, true
	case errors.Is(err, models.ErrNotTracked):
		return errorAnswer{status: http.StatusExpectationFailed, text: models.ErrNotTracked.Error()}, true
	case errors.Is(err, models.ErrWeeklyNotEnabled):
		return errorAnswer{status: http.StatusExpectationFailed, text: models.ErrWeeklyNotEnabled.Error()}, true
	case errors.As(err, &addressErr):
		return errorAnswer{status: http.StatusExpectationFailed, text: addressErr.Error()}, true
	case errors.Is(err, models.ErrNotImplemented):
		return errorAnswer{status: http.StatusNotImplemented, text: textNotImplemented}, true
	case errors.As(err, &unavailable):
		return errorAnswer{status: http.StatusServiceUnavailable, text: textUnavailable, retryAfter: orDefault(unavailable.RetryAfter)}, true
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		// Canceled: the request was cut at shutdown (see Server.cut).
		return errorAnswer{status: http.StatusServiceUnavailable, text: textUnavailable, retryAfter: defaultRetryAfter}, true
	case errors.As(err, &fiberErr):
		return fiberAnswer(fiberErr), true
	}
	return errorAnswer{status: http.StatusInternalServerError, text: textInternal}, false
}

// fiberAnswer words the errors Fiber and fasthttp raise themselves (unknown
// route, oversized headers, timeouts) with the contract's texts.
func fiberAnswer(e *fiber.Error) errorAnswer {
	switch e.Code {
	case http.StatusNotFound:
		return errorAnswer{status: http.StatusNotFound, text: textPathNotFound}
	case http.StatusMethodNotAllowed:
		return errorAnswer{status: http.StatusMethodNotAllowed, text: textMethodNotAllowed}
	}
	text := http.StatusText(e.Code)
	if text == "" {
		return errorAnswer{status: http.StatusBadRequest, text: http.StatusText(http.StatusBadRequest)}
	}
	return errorAnswer{status: e.Code, text: text}
}

func orDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return defaultRetryAfter
	}
	return d
}

// handleError is the Fiber error handler: it renders every error as the
// contract's JSON body and logs what the client does not see.
func (s *Server) handleError(c *fiber.Ctx, err error) error {
	answer, known := classify(err)
	if answer.status == http.StatusRequestEntityTooLarge && !methodAllowed(c) {
		// The body limit is met before routing: a method the route refuses
		// anyway is refused as such.
		answer = errorAnswer{status: http.StatusMethodNotAllowed, text: textMethodNotAllowed}
	}
	busy := answer.status == http.StatusRequestEntityTooLarge && refusedForLargeBodies(c)
	if busy {
		answer = errorAnswer{status: http.StatusServiceUnavailable, text: textUnavailable, retryAfter: defaultRetryAfter}
		s.metrics.refusedBy(limitLargeBodies)
	}
	if stateOf(c) == nil {
		s.refusedUnseen(c, answer.status)
	}
	body := errorBody{Error: true, StatusCode: answer.status, StatusText: answer.text, Info: s.cfg.SupportInfo}
	if !known {
		body.EventID = newEventID()
		attrs := []slog.Attr{
			slog.String("eventId", body.EventID),
			slog.String("requestId", requestID(c)),
			slog.String("route", routeOf(c)),
			slog.String("error", err.Error()),
		}
		var caught *panicError
		if errors.As(err, &caught) {
			attrs = append(attrs, slog.String("stack", string(caught.stack)))
		}
		s.log.LogAttrs(s.requestCtx(c), slog.LevelError, "request failed", attrs...)
	} else if answer.status == http.StatusServiceUnavailable && !busy {
		s.log.LogAttrs(s.requestCtx(c), slog.LevelWarn, "dependency unavailable",
			slog.String("requestId", requestID(c)),
			slog.String("route", routeOf(c)),
			slog.String("error", err.Error()))
	}
	if answer.retryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(ceilSeconds(answer.retryAfter)))
		if answer.status == http.StatusTooManyRequests {
			c.Set(headerRateRetryAfter, strconv.FormatInt(ceilMilliseconds(answer.retryAfter), 10))
		}
	}
	if answer.status == http.StatusMethodNotAllowed {
		c.Set(fiber.HeaderAllow, allowedMethods(c))
	}
	encoded, fixed := s.errorBodies[errorKey{answer.status, answer.text}]
	if !fixed || body.EventID != "" {
		var encodeErr error
		if encoded, encodeErr = json.Marshal(body); encodeErr != nil {
			return encodeErr
		}
	}
	c.Response().Header.Del(fiber.HeaderETag)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Status(answer.status).Send(encoded)
}

// refusedUnseen gives an answer of the HTTP server, made before the app's
// middleware saw the request (Fiber's error handler called by fasthttp),
// what requestContext gives every other: an X-Request-Id and nosniff.
// Requests that came and were refused, a head too large (431) or
// malformed (400), a body too large (413), a leak report the bound on
// large bodies did not admit (503), a head not whole at the read
// timeout (408: a client that sends it a byte at a time, say),
// are counted in the request metrics, under route "unmatched", and get
// an access line, sampled like those of other refusals; a
// connection that sent nothing before its timeout (408) or broke off
// (502) was no request and gets none. Only the heads of a 413 and of
// such a 503 were read: the others' lines name neither method nor route,
// and only those two keep the client's plain request id.
func (s *Server) refusedUnseen(c *fiber.Ctx, status int) {
	header := &c.Response().Header
	if header.PeekBytes(s.headers.requestID) != nil {
		return
	}
	// A 405 here is a 413 of a method the route refuses, a 503 one of a
	// leak report the bound on large bodies did not admit (handleError).
	headRead := status == http.StatusRequestEntityTooLarge || status == http.StatusMethodNotAllowed ||
		status == http.StatusServiceUnavailable
	var id []byte
	if incoming := c.Request().Header.Peek(headerRequestID); headRead && plainRequestID(incoming) {
		id = append(id, incoming...)
	} else {
		id = s.requestIDs.appendUnseenID(nil)
	}
	header.SetCanonical(s.headers.requestID, id)
	header.SetCanonical(s.headers.contentTypeOptions, s.headers.valueNoSniff)
	switch status {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusRequestHeaderFieldsTooLarge, http.StatusMethodNotAllowed,
		http.StatusServiceUnavailable:
	case http.StatusRequestTimeout:
		if c.Locals(localPartialRequest) == nil {
			return
		}
	default:
		return
	}
	s.metrics.refusedBeforeRouting(status)
	if !s.cfg.AccessLog {
		return
	}
	ok, skipped := s.refusals.admit(s.clock.Now())
	if !ok {
		return
	}
	method, route := "-", "-"
	if headRead {
		method, route = methodOf(c), loggedPath(c)
	}
	attrs := []slog.Attr{
		slog.String("requestId", string(id)),
		slog.String("method", method),
		slog.String("route", route),
		slog.Int("status", status),
	}
	if skipped > 0 {
		attrs = append(attrs, slog.Int64("refusedLinesSkipped", skipped))
	}
	s.log.LogAttrs(context.Background(), slog.LevelInfo, accesslog.Message, attrs...)
}

// localPartialRequest is the Locals key that marks a read timeout after
// part of a request came (see markPartialRequests).
const localPartialRequest = "crowns.partialRequest"

// markPartialRequests wraps the HTTP server's error handler, Fiber's,
// which words every read timeout alike (408): a timeout after part of a
// request came is marked under localPartialRequest, so that refusedUnseen
// gives it an access line. fasthttp hands over the bare read error of a
// connection that sent nothing before its timeout, and wraps that of a
// head it was reading ("error when reading request headers: "). A body
// that stops short is not told apart: fasthttp hands over its bare error
// and forgets the head it read.
func markPartialRequests(next func(*fasthttp.RequestCtx, error)) func(*fasthttp.RequestCtx, error) {
	return func(ctx *fasthttp.RequestCtx, err error) {
		var readErr *net.OpError
		if errors.As(err, &readErr) && readErr.Timeout() && err != error(readErr) {
			ctx.SetUserValue(localPartialRequest, true)
		}
		next(ctx, err)
	}
}

// errorKey names an error answer by what its body says.
type errorKey struct {
	status int
	text   string
}

// renderFixedErrors renders the bodies of the error answers that carry
// no request data, once: the 401s and 429 of the hot path among them.
func (s *Server) renderFixedErrors() map[errorKey][]byte {
	fixed := []errorKey{
		{http.StatusNotFound, textPathNotFound},
		{http.StatusMethodNotAllowed, textMethodNotAllowed},
		{http.StatusUnauthorized, textMissingKey},
		{http.StatusUnauthorized, textUnknownKey},
		{http.StatusUnauthorized, textKeyDisabled},
		{http.StatusForbidden, textKeyBlacklisted},
		{http.StatusNotFound, textNotFound},
		{http.StatusNotImplemented, textNotImplemented},
		{http.StatusTooManyRequests, textRateLimited},
		{http.StatusServiceUnavailable, textUnavailable},
		{http.StatusExpectationFailed, models.ErrNotTracked.Error()},
		{http.StatusExpectationFailed, models.ErrWeeklyNotEnabled.Error()},
	}
	bodies := make(map[errorKey][]byte, len(fixed))
	for _, k := range fixed {
		bodies[k] = fixedErrorBody(k.status, k.text, s.cfg.SupportInfo)
	}
	return bodies
}

// fixedErrorBody is the contract's error body of status and text, without
// an event id. A struct of a bool, an int and strings always encodes.
func fixedErrorBody(status int, text, supportInfo string) []byte {
	body, _ := json.Marshal(errorBody{Error: true, StatusCode: status, StatusText: text, Info: supportInfo})
	return body
}

// ceilMilliseconds rounds a duration up to whole milliseconds.
func ceilMilliseconds(d time.Duration) int64 {
	return d.Milliseconds() + boolToInt(d%time.Millisecond != 0)
}

// ceilSeconds rounds a positive duration up to whole seconds (at least 1).
func ceilSeconds(d time.Duration) int {
	return max(1, int(math.Ceil(d.Seconds())))
}

// newEventID returns a random id that ties a 500 answer to its log line.
func newEventID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
