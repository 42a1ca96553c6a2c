package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/models"
)

// maxBody bounds what one answer may weigh; the largest real answers (a
// battle log, a tournament of 1000 players) are about 250 kilobytes. As
// many answers as the concurrency allows are held at once, so the bound is
// kept near ten times that rather than anything a process can spare.
const maxBody = 2 << 20

// errAnswerTooLarge is the failure of an answer over maxBody: it is refused
// whole, never decoded cut short.
var errAnswerTooLarge = fmt.Errorf("answer larger than %d bytes", maxBody)

// request is one logical call: a path below the base URL (already
// escaped), its query, the caller-safe message of a 400, the endpoint it
// is counted under, and what the decoded answer must hold: for a lookup by
// tag, the tag asked (see sameTag); for a list, the list (see listed).
type request struct {
	path     string
	query    url.Values
	invalid  string
	endpoint endpoint
	answers  func() error
}

// sameTag checks that an answer decoded into *answered is the one of the
// tag asked: an answer of another clan or tournament (or of none) is not
// taken, nor stored under the tag asked. One that writes the tag in
// another case carries the tag as asked from then on (callers ask in the
// normal, upper-case form).
func sameTag(asked string, answered *string) func() error {
	return func() error {
		if !strings.EqualFold(bareTag(*answered), asked) {
			return fmt.Errorf("answer of another tag: asked %q, answered %q", asked, *answered)
		}
		*answered = strings.TrimSuffix(*answered, bareTag(*answered)) + asked
		return nil
	}
}

// listed checks that an answer decoded into *items held a list: a body
// without one (null, {}, the list under another name) is not the game's
// answer, and is not taken for an empty one, which callers would cache as
// "no clan matches" or "no battles". An empty list that is there decodes
// as empty, not nil.
func listed[T any](items *[]T) func() error {
	return func() error {
		if *items == nil {
			return errors.New("answer without its list")
		}
		return nil
	}
}

// answer is what one attempt got: a status and body, or a transport error.
type answer struct {
	status     int
	body       []byte
	retryAfter time.Duration // from the Retry-After header; 0 if none
	err        error
}

// get performs req, retrying transient failures within the call's
// deadline, and decodes a 200 body into out, every NUL in its strings
// replaced (models.MakeJSONStorable: this is where game text enters
// Crowns); the call metrics count it.
func (c *Client) get(ctx context.Context, req request, out any) error {
	if c.metrics == nil {
		_, err := c.call(ctx, req, out)
		return err
	}
	started := c.clock.Now()
	outcome, err := c.call(ctx, req, out)
	c.metrics.observe(req.endpoint, outcome, c.clock.Now().Sub(started))
	return err
}

// call is get without the metrics; it says how the call ended.
func (c *Client) call(ctx context.Context, req request, out any) (callOutcome, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	started := c.clock.Now()
	target := c.baseURL + req.path
	if len(req.query) > 0 {
		target += "?" + req.query.Encode()
	}
	for attempt := 1; ; attempt++ {
		token, place, _ := c.tokens.pick(c.clock.Now())
		got := c.attempt(ctx, target, token, c.maxAttempts-attempt+1)
		attrs := []any{"path", req.path, "status", got.status, "attempt", attempt, "elapsed", c.clock.Now().Sub(started)}
		if got.err == nil && got.status == http.StatusOK {
			models.MakeJSONStorable(got.body)
			if err := json.Unmarshal(got.body, out); err != nil {
				c.log.Error("game API answered with a body that does not decode", append(attrs, "error", err)...)
				return outcomeUnavailable, models.Unavailable("upstream", retryDefault, fmt.Errorf("decode %s: %w", req.path, err))
			}
			if req.answers != nil {
				if err := req.answers(); err != nil {
					c.log.Error("game API answered with a body that is not the answer asked", append(attrs, "error", err)...)
					return outcomeUnavailable, models.Unavailable("upstream", retryDefault, fmt.Errorf("%s: %w", req.path, err))
				}
			}
			c.log.Debug("game API call", attrs...)
			return outcomeOK, nil
		}
		f := c.judge(got, req)
		if got.status == http.StatusForbidden && c.setTokenAside(ctx, place, f) && attempt < c.maxAttempts {
			continue // at once, with the next token
		}
		if !f.transient || attempt >= c.maxAttempts || ctx.Err() != nil {
			c.report(ctx, f, attrs)
			return outcomeOf(ctx, got, f), f.err
		}
		wait := c.retry.Delay(attempt)
		if got.retryAfter > 0 {
			wait = got.retryAfter
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= wait {
			c.report(ctx, f, attrs)
			return outcomeOf(ctx, got, f), f.err
		}
		c.log.Log(ctx, failureLevel(ctx, slog.LevelWarn), "game API attempt failed, retrying", append(attrs, "wait", wait, "error", f.err)...)
		if !backoff.Wait(ctx, wait) {
			c.report(ctx, f, attrs)
			return outcomeOf(ctx, got, f), f.err
		}
	}
}

// attempt sends one request once fewer than the concurrency limit are in flight. It gets a
// share of the remaining time so that a hanging attempt leaves room for the
// next: the remaining time divided by the attempts left.
func (c *Client) attempt(ctx context.Context, target, token string, attemptsLeft int) answer {
	select {
	case c.inFlight <- struct{}{}:
		defer func() { <-c.inFlight }()
	case <-ctx.Done():
		return answer{err: ctx.Err()}
	}
	if deadline, ok := ctx.Deadline(); ok && attemptsLeft > 1 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Until(deadline)/time.Duration(attemptsLeft))
		defer cancel()
	}
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return answer{err: err}
	}
	httpReq.Header.Set("Authorization", "Bearer "+token)
	httpReq.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(httpReq)
	if err != nil {
		return answer{err: withoutQuery(err)}
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return answer{status: resp.StatusCode, err: err}
	}
	if len(body) > maxBody {
		return answer{status: resp.StatusCode, err: errAnswerTooLarge}
	}
	return answer{status: resp.StatusCode, body: body, retryAfter: c.parseRetryAfter(resp.Header.Get("Retry-After"))}
}

// setTokenAside leaves out of the rotation the token at place, which the
// game API refused, when there are several, and logs it by its place in
// the list (never the token); it reports whether another token is in use
// meanwhile.
func (c *Client) setTokenAside(ctx context.Context, place int, f failure) bool {
	if len(c.tokens.tokens) < 2 {
		return false
	}
	othersLeft := c.tokens.setAside(place, c.clock.Now())
	c.log.Log(ctx, slog.LevelError, "the game API refused one of the tokens; it is left out for a while",
		append([]any{"token", place + 1, "of", len(c.tokens.tokens), "for", tokenAsideFor, "othersLeft", othersLeft}, f.attrs...)...)
	return othersLeft
}

// withoutQuery is a transport error without the query of the address it
// names: the query holds what a client sent (a clan search's name), which
// is not for logs, where the error goes; the call's path says which call
// failed.
func withoutQuery(err error) error {
	var urlErr *url.Error
	if !errors.As(err, &urlErr) {
		return err
	}
	address, _, _ := strings.Cut(urlErr.URL, "?")
	return &url.Error{Op: urlErr.Op, URL: address, Err: urlErr.Err}
}
