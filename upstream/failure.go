package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"syscall"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/official"
)

// Advised waits of an UnavailableError when the upstream named none.
const (
	retryDefault     = 10 * time.Second
	retryMaintenance = 30 * time.Second
	retryRefused     = 60 * time.Second
)

// refusedTokenMessage is the loud log line of a 403: the fix is on the
// operator's side.
const refusedTokenMessage = "the game API refused our token: check CROWNS_UPSTREAM_TOKEN and the token's allowed IP addresses"

// foreignNotFoundMessage is the loud log line of a 404 without the game's
// not-found body: the path asked is not one the game API serves, most
// likely because the base URL is wrong (a missing /v1, a proxy, another
// host), and every clan and player would read as not found.
const foreignNotFoundMessage = "the game API answered 404 without its not-found body: check CROWNS_UPSTREAM_URL, the game API's base including /v1"

// defaultInvalidMessage is the caller-safe text of a 400 when the call
// names none of its own, in the contract's words for a bad value: the
// calls a client's request makes without one take a tag alone (a clan, a
// player, a tournament). The catalog's lists take nothing a client chose,
// and only the background refresh calls them: their 400 reaches no
// client.
const defaultInvalidMessage = "invalid value for 'tag': the game API does not take it"

// failure is a failed attempt, judged: the error for the caller, whether
// another attempt may help, and how to log it.
type failure struct {
	err       error
	transient bool
	level     slog.Level
	message   string
	attrs     []any
}

// judge turns a failed attempt into the project's errors.
func (c *Client) judge(got answer, req request) failure {
	if errors.Is(got.err, errAnswerTooLarge) {
		return failure{
			err:     models.Unavailable("upstream", retryDefault, fmt.Errorf("GET %s: %w", req.path, got.err)),
			level:   slog.LevelError,
			message: "game API answered with a body over the bound",
		}
	}
	if got.err != nil {
		return failure{
			err:       models.Unavailable("upstream", retryDefault, fmt.Errorf("GET %s: %w", req.path, got.err)),
			transient: transientTransportError(got.err),
			level:     slog.LevelWarn,
			message:   "game API unreachable",
		}
	}
	reason := c.errorBody(got.body)
	advised := func(def time.Duration) time.Duration {
		if got.retryAfter > 0 {
			return got.retryAfter
		}
		return def
	}
	cause := fmt.Errorf("GET %s: status %d %s", req.path, got.status, reason.Reason)
	switch got.status {
	case http.StatusNotFound:
		// Only the game's own not-found body says that what was asked
		// does not exist; a 404 of anything else (a web server, a proxy,
		// a path the game API does not serve) says nothing of it.
		if reason.Reason == official.ReasonNotFound {
			return failure{err: models.ErrNotFound, level: slog.LevelDebug, message: "game API: not found"}
		}
		return failure{err: models.Unavailable("upstream", advised(retryDefault), cause), level: slog.LevelError, message: foreignNotFoundMessage,
			attrs: []any{"url", c.baseURL + req.path}}
	case http.StatusBadRequest:
		message := req.invalid
		if message == "" {
			message = defaultInvalidMessage
		}
		return failure{err: models.Invalid("%s", message), level: slog.LevelWarn, message: "game API rejected a request as bad",
			attrs: []any{"reason", reason.Reason, "upstreamMessage", reason.Message}}
	case http.StatusForbidden:
		return failure{err: models.Unavailable("upstream", retryRefused, cause), level: slog.LevelError, message: refusedTokenMessage,
			attrs: []any{"reason", reason.Reason, "upstreamMessage", reason.Message}}
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return failure{err: models.Unavailable("upstream", advised(retryDefault), cause), transient: true, level: slog.LevelWarn, message: "game API unavailable"}
	case http.StatusServiceUnavailable:
		return failure{err: models.Unavailable("upstream", advised(retryMaintenance), cause), transient: true, level: slog.LevelWarn, message: "game API in maintenance"}
	default:
		return failure{err: models.Unavailable("upstream", advised(retryDefault), cause), level: slog.LevelError, message: "game API answered with an unexpected status"}
	}
}

// report logs the final failure of a call.
func (c *Client) report(ctx context.Context, f failure, attrs []any) {
	all := append(append(attrs, f.attrs...), "error", f.err)
	c.log.Log(ctx, failureLevel(ctx, f.level), f.message, all...)
}

// errorBody reads an official error body for the log, with the token (in
// case an answer ever echoes it) blanked out.
func (c *Client) errorBody(body []byte) official.ClientError {
	var e official.ClientError
	if json.Unmarshal(body, &e) != nil {
		return official.ClientError{}
	}
	e.Message = c.tokens.redact(e.Message)
	e.Reason = c.tokens.redact(e.Reason)
	return e
}

// transientTransportError reports whether another attempt may succeed
// after a transport failure: refused or reset connections, a connection
// closed mid-answer and timeouts of a single attempt.
func transientTransportError(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}
