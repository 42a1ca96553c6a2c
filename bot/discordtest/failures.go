package discordtest

import (
	"net/http"
	"strconv"
	"time"
)

// Failure is a way Discord refuses a request.
type Failure int

// The failures the fake can answer with, as Discord words them.
const (
	// DMClosed is 403 with JSON code 50007: the member does not accept
	// direct messages from server members.
	DMClosed Failure = iota + 1
	// Forbidden is 403 with code 50013: the bot lacks a permission.
	Forbidden
	// NotFound is 404 with code 10003: unknown channel.
	NotFound
	// RateLimited is 429 with a tiny retry-after, or the rule's
	// RetryAfter (discordgo waits and retries by itself).
	RateLimited
	// ServerError is 500.
	ServerError
	// Unauthorized is 401: the token is not valid.
	Unauthorized
	// UnknownMessage is 404 with code 10008: the message is gone.
	UnknownMessage
	// InvalidFormBody is 400 with code 50035: Discord refuses what the
	// request's body says (a text past a limit, a field it does not
	// take), however often it is sent.
	InvalidFormBody
	// NotTextChannel is 400 with code 50008: the channel takes no
	// messages (a voice channel or a category), whatever the body.
	NotTextChannel
)

// String names the failure, for test names.
func (f Failure) String() string {
	switch f {
	case DMClosed:
		return "dm-closed-50007"
	case Forbidden:
		return "forbidden-403"
	case NotFound:
		return "not-found-404"
	case RateLimited:
		return "rate-limited-429"
	case ServerError:
		return "server-error-500"
	case Unauthorized:
		return "unauthorized-401"
	case UnknownMessage:
		return "unknown-message-404"
	case InvalidFormBody:
		return "invalid-form-body-400"
	case NotTextChannel:
		return "not-text-channel-400"
	}
	return "unknown-failure"
}

// Rule makes requests fail: those with Method whose path matches Path
// (relative to the API prefix; a "*" segment matches any one segment, as
// in "/channels/*/messages"). The first Skip matching requests pass; then
// Times requests fail (every later one when Times <= 0). RetryAfter is
// how long a RateLimited answer asks the client to wait (1 ms when 0).
// With Taken the fake does what a failing request asks before answering
// with the failure, as when Discord acted on a request but its answer
// was lost on the way (a 5xx from a proxy, say). With Global a
// RateLimited answer is Discord's global rate limit, as Discord documents
// and sends it: Retry-After, X-RateLimit-Global and X-RateLimit-Scope
// "global", none of a route's X-RateLimit-Limit, -Remaining, -Reset or
// -Reset-After, and "global": true in the body.
type Rule struct {
	Method     string
	Path       string
	Failure    Failure
	Skip       int
	Times      int
	RetryAfter time.Duration
	Taken      bool
	Global     bool
}

// Fail adds a failure rule. Rules added earlier are tried first.
func (s *Server) Fail(r Rule) {
	if r.Times <= 0 {
		r.Times = -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, &r)
}

// Heal removes every failure rule.
func (s *Server) Heal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = nil
}

// takeFailure returns the first rule, in the order added, that makes this
// request fail; a matching rule still skipping counts the request and lets
// later rules decide. s.mu is held.
func (s *Server) takeFailure(method, path string) (Rule, bool) {
	for i, r := range s.rules {
		if r.Method != method || !pathMatches(r.Path, path) {
			continue
		}
		if r.Skip > 0 {
			r.Skip--
			continue
		}
		if r.Times > 0 {
			r.Times--
			if r.Times == 0 {
				s.rules = append(s.rules[:i:i], s.rules[i+1:]...)
			}
		}
		return *r, true
	}
	return Rule{}, false
}

// write answers with the rule's failure: its status, headers and JSON
// body.
func (r Rule) write(w http.ResponseWriter) {
	switch r.Failure {
	case DMClosed:
		writeJSON(w, http.StatusForbidden, apiError{Message: "Cannot send messages to this user", Code: 50007})
	case Forbidden:
		writeJSON(w, http.StatusForbidden, apiError{Message: "Missing Permissions", Code: 50013})
	case NotFound:
		writeJSON(w, http.StatusNotFound, apiError{Message: "Unknown Channel", Code: 10003})
	case UnknownMessage:
		writeJSON(w, http.StatusNotFound, apiError{Message: "Unknown Message", Code: 10008})
	case InvalidFormBody:
		writeJSON(w, http.StatusBadRequest, invalidFormBody{Message: "Invalid Form Body", Code: codeInvalidFormBody})
	case NotTextChannel:
		writeJSON(w, http.StatusBadRequest, apiError{Message: "Cannot send messages in a non-text channel", Code: 50008})
	case RateLimited:
		wait := r.RetryAfter
		if wait <= 0 {
			wait = time.Millisecond
		}
		w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)))
		if r.Global {
			w.Header().Set("X-RateLimit-Global", "true")
			w.Header().Set("X-RateLimit-Scope", "global")
		} else {
			w.Header().Set("X-RateLimit-Limit", "5")
			w.Header().Set("X-RateLimit-Remaining", "0")
			w.Header().Set("X-RateLimit-Reset-After", strconv.FormatFloat(wait.Seconds(), 'f', 3, 64))
			w.Header().Set("X-RateLimit-Scope", "user")
		}
		writeJSON(w, http.StatusTooManyRequests, struct {
			Message    string  `json:"message"`
			RetryAfter float64 `json:"retry_after"`
			Global     bool    `json:"global"`
		}{Message: "You are being rate limited.", RetryAfter: wait.Seconds(), Global: r.Global})
	case Unauthorized:
		writeJSON(w, http.StatusUnauthorized, apiError{Message: "401: Unauthorized", Code: 0})
	default:
		writeJSON(w, http.StatusInternalServerError, apiError{Message: "500: Internal Server Error", Code: 0})
	}
}
