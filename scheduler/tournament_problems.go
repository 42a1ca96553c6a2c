package scheduler

import (
	"log/slog"
	"sync"
)

// refreshProblems gathers the game API failures of one tournament refresh
// pass, so that they are logged as one line a pass, not one a search and
// a lookup: while the game API is down, every search term and every due
// tournament fails each pass.
type refreshProblems struct {
	mu sync.Mutex
	// searches and lookups count the failed searches and lookups;
	// exampleTerm or exampleTag, and exampleError, are the first one's.
	searches, lookups       int
	exampleTerm, exampleTag string
	exampleError            string
}

// searchFailed notes a failed search for term, searched again next period.
func (p *refreshProblems) searchFailed(term string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.searches+p.lookups == 0 {
		p.exampleTerm, p.exampleError = term, err.Error()
	}
	p.searches++
}

// lookupFailed notes a failed lookup of tag, tried again after its lease.
func (p *refreshProblems) lookupFailed(tag string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.searches+p.lookups == 0 {
		p.exampleTag, p.exampleError = tag, err.Error()
	}
	p.lookups++
}

// logRefreshProblems writes a pass's failed game API calls at WARN in one
// line: how many failed (searches and lookups), and the first one as an
// example; each has its own line at DEBUG.
func (r *TournamentRefresher) logRefreshProblems(p *refreshProblems) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.searches+p.lookups == 0 {
		return
	}
	example := []any{"error", p.exampleError}
	if p.exampleTerm != "" {
		example = append([]any{"term", p.exampleTerm}, example...)
	} else {
		example = append([]any{"tag", p.exampleTag}, example...)
	}
	r.log.Warn("tournament game API calls failed; searches run again next period, lookups after their lease",
		"failed", p.searches+p.lookups, "searches", p.searches, "lookups", p.lookups, slog.Group("example", example...))
}
