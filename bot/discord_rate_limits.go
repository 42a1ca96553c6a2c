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
// (DirectMessageTimeout, AnswerTimeout, HandlerTimeout) held the member's
// answer, and the bot's shutdown, for as long as Discord asked, only for
// the request to fail with its deadline passed. This transport hands
// discordgo a 429 only when its wait ends before the request's deadline
// (or the request has none); otherwise the request fails at once with
// context.DeadlineExceeded, as it would have after the wait.
type rateLimitTransport struct {
	next http.RoundTripper
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
		return resp, nil
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
// rateLimitTransport around client's own.
func withRateLimitTransport(client *http.Client) *http.Client {
	next := client.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	wrapped := *client
	wrapped.Transport = rateLimitTransport{next: next}
	return &wrapped
}
