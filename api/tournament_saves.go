package api

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/models"
)

// tournamentSaveRetry is how a looked-up tournament whose write failed is
// tried again: soon, then at most once a minute while the database fails.
var tournamentSaveRetry = backoff.Policy{First: time.Second, Max: time.Minute}

// maxPendingTournamentSaves bounds the tournaments waiting to be written
// again: past it, a failed write is logged and left (a database away that
// long keeps the whole known list waiting, not a few lookups).
const maxPendingTournamentSaves = 1000

// tournamentSaves stores again, in the background, the looked-up
// tournaments whose write the database could not take (busy, locked or
// away), so that every tournament a client looked up reaches the known
// list: the client got its answer at once, and the answer stays in the
// response cache, so no later lookup would write it. One retry loop a
// tag, with the latest details looked up (a write older than what the
// database holds by then only marks the tournament requested: see the
// store); close ends them, logging what was not stored.
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

// retry stores details, looked up at seenAt, in the background, when its
// first write failed with err because the database could not take it;
// it reports whether it will, and logs why not when it will not for
// want of room or time.
func (t *tournamentSaves) retry(details models.TournamentDetails, seenAt time.Time, err error) bool {
	if !errors.Is(err, models.ErrUnavailable) {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	_, running := t.pending[details.Tag]
	switch {
	case t.ctx.Err() != nil:
		t.log.Warn("a looked-up tournament was not stored: the server is stopping", "tag", details.Tag)
		return false
	case !running && len(t.pending) >= maxPendingTournamentSaves:
		t.log.Warn("a looked-up tournament was not stored: too many wait to be written again", "tag", details.Tag, "waiting", len(t.pending))
		return false
	}
	t.lookups++
	t.pending[details.Tag] = pendingTournamentSave{details: details, seenAt: seenAt, lookup: t.lookups}
	if !running {
		t.wg.Add(1)
		go t.loop(details.Tag)
	}
	return true
}

// loop tries to store tag's latest lookup until a write succeeds, fails
// for another reason than an unavailable database, or the saves close.
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
		switch {
		case err != nil && t.ctx.Err() != nil:
			// Closed during the write: the wait above says so next.
		case err != nil && errors.Is(err, models.ErrUnavailable):
			t.log.Warn("could not store a looked-up tournament; trying again", "tag", tag, "tries", failures+1, "error", err)
		case err != nil:
			t.log.Error("could not store a looked-up tournament; not trying again", "tag", tag, "tries", failures+1, "error", err)
			if t.forget(tag, save.lookup) {
				return
			}
			failures = 0 // a newer lookup came meanwhile: try it afresh
		case t.forget(tag, save.lookup):
			t.log.Info("stored a looked-up tournament after its write failed", "tag", tag, "tries", failures+1)
			return
		}
		// Not stored yet, or looked up again meanwhile: write the latest.
	}
}

// forget drops tag's pending write if it is still the one of lookup, and
// reports whether it was.
func (t *tournamentSaves) forget(tag string, lookup uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pending[tag].lookup != lookup {
		return false
	}
	delete(t.pending, tag)
	return true
}

// close stops the retries and waits for them to end. Stopping under the
// lock orders it with retry's check: no loop starts after it.
func (t *tournamentSaves) close() {
	t.mu.Lock()
	t.stop()
	t.mu.Unlock()
	t.wg.Wait()
}
