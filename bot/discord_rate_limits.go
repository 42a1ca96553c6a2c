package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// rateLimitTransport carries the session's requests. discordgo waits out
// a 429's retry_after with a sleep deaf to the request's context, then
// sends the request again: a rate limit longer than a deadline
// (DirectMessageTimeout, AnswerTimeout, HandlerTimeout, RequestTimeout)
// held the member's answer, and the bot's shutdown, for as long as Discord
// asked, only for the request to fail with its deadline passed. This
// transport hands discordgo a 429 only when its wait ends before the
// request's deadline; otherwise the request fails at once with
// context.DeadlineExceeded, as it would have after the wait. A request
// without a deadline (discordgo's own, which take no context) is held to
// withoutDeadline from now.
type rateLimitTransport struct {
	next            http.RoundTripper
	withoutDeadline time.Duration
}

// RoundTrip sends req, failing it when Discord answers 429 with a wait
// past its deadline.
func (t rateLimitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests {
		return resp, err
	}
	deadline, ok := req.Context().Deadline()
	if !ok {
		deadline = time.Now().Add(t.withoutDeadline)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	// The wait discordgo makes: the body's retry_after, in seconds.
	var limit struct {
		RetryAfter float64 `json:"retry_after"`
	}
	if json.Unmarshal(body, &limit) == nil {
		if wait := time.Duration(limit.RetryAfter * float64(time.Second)); time.Until(deadline) < wait {
			return nil, fmt.Errorf("%w: Discord asks to wait %s before trying again", context.DeadlineExceeded, wait)
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// withRateLimitTransport returns a copy of client whose transport is
// rateLimitTransport around client's own, holding a request without a
// deadline to withoutDeadline.
func withRateLimitTransport(client *http.Client, withoutDeadline time.Duration) *http.Client {
	next := client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	wrapped := *client
	wrapped.Transport = rateLimitTransport{next: next, withoutDeadline: withoutDeadline}
	return &wrapped
}

// requestContext bounds a request the bot makes of its own accord by
// RequestTimeout (see Config.RequestTimeout); it still ends with ctx.
func (b *Bot) requestContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, b.cfg.RequestTimeout)
}
