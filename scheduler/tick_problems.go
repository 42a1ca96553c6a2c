package scheduler

import (
	"log/slog"
	"sync"
	"time"

	"github.com/crownsdev/crowns/models"
)

// tickProblems gathers what went wrong with many jobs of one tick, so
// that it is logged as one line a tick, not one a job: while the game API
// is down, each of 10,000 clans' jobs fails several times a slot.
type tickProblems struct {
	mu sync.Mutex
	// failedFetches counts the fetches that failed and are tried again;
	// fetchClan and fetchError are the first one's.
	failedFetches         int
	fetchClan, fetchError string
}

// fetchFailed notes a failed fetch of clan, which is tried again.
func (p *tickProblems) fetchFailed(clan, reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failedFetches == 0 {
		p.fetchClan, p.fetchError = clan, reason
	}
	p.failedFetches++
}

// logTickProblems writes a tick's problems at WARN, one line each kind:
// the fetches that failed (each tried again later, its own line at
// DEBUG), and the jobs whose window ended without a snapshot (each at
// DEBUG with its clan, slot and last error), with an example of each.
func (s *Scheduler) logTickProblems(problems *tickProblems, missed []models.MissedJob) {
	if n := problems.failedFetches; n > 0 {
		s.log.Warn("snapshot fetches failed; each is tried again before its window ends",
			"failed", n, "exampleClan", problems.fetchClan, "exampleError", problems.fetchError)
	}
	if len(missed) == 0 {
		return
	}
	for _, m := range missed {
		s.log.Debug("snapshot slot missed: its window ended without a snapshot", "clan", m.Tag, "kind", m.Kind.String(),
			"slot", time.Unix(m.Slot, 0).UTC(), "attempts", m.Attempts, "lastError", m.LastError)
	}
	first := missed[0]
	s.log.Warn("snapshot slots missed: their windows ended without a snapshot", "jobs", len(missed),
		slog.Group("example", "clan", first.Tag, "kind", first.Kind.String(), "slot", time.Unix(first.Slot, 0).UTC(),
			"attempts", first.Attempts, "lastError", first.LastError))
}
