package api

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/models"
)

// tournamentSaveRetry is how a looked-up tournament whose write failed is
// tried again: soon, then at most once a minute while the database fails.
var tournamentSaveRetry = backoff.Policy{First: time.Second, Max: time.Minute}

// tournamentSaves stores again, in the background, the looked-up
// tournaments whose write failed (the database busy, locked or away), so
// that every tournament a client looked up reaches the known list: the
// client got its answer at once, and the answer stays in the response
// cache, so no later lookup would write it. One retry loop a tag, with the
// latest details looked up; stop ends them, logging what was not stored.
type tournamentSaves struct {
	store   TournamentStore
	log     *slog.Logger
	timeout time.Duration

	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu sync.Mutex
	// pending holds, by tag, the latest lookup not stored yet; lookups
	// counts them, to tell a newer one.
	pending map[string]pendingTournamentSave
	lookups uint64
}

// pendingTournamentSave is a looked-up tournament waiting to be stored.
type pendingTournamentSave struct {
	details models.TournamentDetails
	seenAt  time.Time
	lookup  uint64
}

// newTournamentSaves retries writes to store, each bounded by timeout.
func newTournamentSaves(store TournamentStore, log *slog.Logger, timeout time.Duration) *tournamentSaves {
	ctx, stop := context.WithCancel(context.Background())
	return &tournamentSaves{store: store, log: log, timeout: timeout, ctx: ctx, stop: stop,
		pending: make(map[string]pendingTournamentSave)}
}

// retry stores details, looked up at seenAt, in the background: its first
// write failed.
func (t *tournamentSaves) retry(details models.TournamentDetails, seenAt time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, running := t.pending[details.Tag]
	t.lookups++
	t.pending[details.Tag] = pendingTournamentSave{details: details, seenAt: seenAt, lookup: t.lookups}
	if running || t.ctx.Err() != nil {
		return
	}
	t.wg.Add(1)
	go t.loop(details.Tag)
}

// loop tries to store tag's latest lookup until a write succeeds or the
// saves stop.
func (t *tournamentSaves) loop(tag string) {
	defer t.wg.Done()
	for failures := 1; ; failures++ {
		if !backoff.Wait(t.ctx, tournamentSaveRetry.Delay(failures)) {
			t.log.Warn("a looked-up tournament was not stored before the server stopped: it is missing from the known list until looked up again", "tag", tag, "tries", failures)
			return
		}
		t.mu.Lock()
		save := t.pending[tag]
		t.mu.Unlock()
		ctx, cancel := context.WithTimeout(t.ctx, t.timeout)
		err := t.store.SaveRequestedTournament(ctx, save.details, save.seenAt)
		cancel()
		if err != nil {
			if t.ctx.Err() == nil {
				t.log.Warn("could not store a looked-up tournament; trying again", "tag", tag, "tries", failures+1, "error", err)
			}
			continue
		}
		t.mu.Lock()
		if t.pending[tag].lookup == save.lookup {
			delete(t.pending, tag)
			t.mu.Unlock()
			t.log.Info("stored a looked-up tournament after its write failed", "tag", tag, "tries", failures+1)
			return
		}
		t.mu.Unlock() // looked up again meanwhile: store the newer one
	}
}

// close stops the retries and waits for them to end.
func (t *tournamentSaves) close() {
	t.stop()
	t.wg.Wait()
}
