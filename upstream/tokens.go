package upstream

import (
	"strings"
	"sync"
	"time"
)

// tokenAsideFor is how long a token the game API refused (403) is left
// out of the rotation before it is tried again.
const tokenAsideFor = 10 * time.Minute

// tokenRing hands out the game-API tokens in turn, leaving out for a while
// a token the game API refused, so that several tokens share the load and
// one revoked or IP-restricted token does not fail every call.
type tokenRing struct {
	tokens []string

	mu   sync.Mutex
	next int
	// asideUntil is, per token, when a refused token is tried again.
	asideUntil []time.Time
}

// Tokens reads Config.Token, a comma-separated list of tokens, as the
// client does: each trimmed, blanks ignored.
func Tokens(list string) []string {
	var tokens []string
	for token := range strings.SplitSeq(list, ",") {
		if token = strings.TrimSpace(token); token != "" {
			tokens = append(tokens, token)
		}
	}
	return tokens
}

// newTokenRing reads a comma-separated list of tokens (Tokens).
func newTokenRing(list string) *tokenRing {
	tokens := Tokens(list)
	return &tokenRing{tokens: tokens, asideUntil: make([]time.Time, len(tokens))}
}

// pick returns the next token in turn that is not set aside at now, and
// its place in the list. When every token is set aside, the one whose
// time out ends first is used: the game API then says whether it is still
// refused. ok is false when there is no token at all.
func (r *tokenRing) pick(now time.Time) (token string, place int, ok bool) {
	if len(r.tokens) == 0 {
		return "", 0, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	soonest := -1
	for range r.tokens {
		i := r.next
		r.next = (r.next + 1) % len(r.tokens)
		if !now.Before(r.asideUntil[i]) {
			return r.tokens[i], i, true
		}
		if soonest < 0 || r.asideUntil[i].Before(r.asideUntil[soonest]) {
			soonest = i
		}
	}
	return r.tokens[soonest], soonest, true
}

// setAside leaves the token at place out of the rotation until
// tokenAsideFor after now; it reports whether another token is in use
// meanwhile.
func (r *tokenRing) setAside(place int, now time.Time) (othersLeft bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asideUntil[place] = now.Add(tokenAsideFor)
	for i := range r.tokens {
		if !now.Before(r.asideUntil[i]) {
			return true
		}
	}
	return false
}

// redact blanks every token out of s (an error text the game API wrote).
func (r *tokenRing) redact(s string) string {
	for _, token := range r.tokens {
		s = strings.ReplaceAll(s, token, "[token]")
	}
	return s
}
