package keys

import (
	"context"
	"sync"
	"time"

	"github.com/crownsdev/crowns/internal/outage"
	"github.com/crownsdev/crowns/models"
)

// eventFeed is where Sync is in the key_events outbox.
type eventFeed struct {
	mu      sync.Mutex
	started bool
	// cursor is the id of the last event read.
	cursor int64
	// own are events this Service committed itself after the feed started:
	// their verdicts were dropped at commit, a sync skips them.
	own map[int64]bool
}

// committed notes events this Service just committed, so Sync does not
// drop their verdicts a second time (costing a lookup of every key
// concerned).
func (f *eventFeed) committed(events []models.KeyEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.started {
		return // no Sync runs: nothing would ever read these back
	}
	if f.own == nil {
		f.own = make(map[int64]bool)
	}
	for _, e := range events {
		if e.ID > f.cursor {
			f.own[e.ID] = true
		}
	}
}

// Sync reads the key-event outbox from where the previous Sync stopped
// and drops the cached verdicts of every developer an event concerns, so
// a change made by another process (the bot, `crowns keys`, another
// replica) is seen here at the next sync. Every transition records its
// event in the same transaction, and event ids become visible in commit
// order, so nothing is missed. While syncs succeed, cached verdicts are
// trusted for up to SyncedCacheTTL instead of CacheTTL: key checks cost
// no query in steady state. The first Sync starts at the end of the
// outbox and drops every cached verdict (they were not covered by a
// sync). Run calls Sync every SyncInterval.
func (s *Service) Sync(ctx context.Context) error {
	s.feed.mu.Lock()
	defer s.feed.mu.Unlock()
	start := s.clock.Now().UnixNano()
	if !s.feed.started {
		last, err := s.db.LastKeyEventID(ctx)
		if err != nil {
			return err
		}
		s.cache.forgetAll()
		s.feed.cursor, s.feed.started = last, true
		s.cache.synced.Store(start)
		return nil
	}
	for {
		events, err := s.db.KeyEventsAfter(ctx, s.feed.cursor, maxEventsLimit)
		if err != nil {
			return err
		}
		if len(events) == 0 {
			break
		}
		if err := s.forgetDevelopers(ctx, events); err != nil {
			return err
		}
		s.feed.cursor = events[len(events)-1].ID
		for id := range s.feed.own {
			if id <= s.feed.cursor {
				delete(s.feed.own, id)
			}
		}
		if len(events) < maxEventsLimit {
			break
		}
	}
	s.cache.synced.Store(start)
	return nil
}

// forgetDevelopers drops the cached verdicts of every key of the
// developers these events concern, but for the events of this Service.
// It runs under the feed's lock.
func (s *Service) forgetDevelopers(ctx context.Context, events []models.KeyEvent) error {
	seen := make(map[int64]bool, len(events))
	developers := make([]int64, 0, len(events))
	for _, e := range events {
		if !seen[e.DeveloperID] && !s.feed.own[e.ID] {
			seen[e.DeveloperID] = true
			developers = append(developers, e.DeveloperID)
		}
	}
	if len(developers) == 0 {
		return nil
	}
	digests, err := s.db.KeyDigestsOfDevelopers(ctx, developers)
	if err != nil {
		return err
	}
	s.cache.forget(digests)
	return nil
}

// syncTimeout bounds one Sync of Run: well under the 5 s for which a
// cached verdict stays trusted after the last successful sync, so that a
// stalled read fails and the next tick tries again in time.
const syncTimeout = 2 * time.Second

// runSync calls Sync at once and every SyncInterval until ctx ends.
func (s *Service) runSync(ctx context.Context) {
	ticker := time.NewTicker(s.syncInterval)
	defer ticker.Stop()
	unsynced := s.outageLog("cannot read key events; cached key checks fall back to a 5 s lifetime", "reading key events again")
	for {
		s.syncOnce(ctx, unsynced)
		select {
		case <-ticker.C:
		case <-ctx.Done():
			return
		}
	}
}

// syncOnce calls Sync once, within syncTimeout, and tells unsynced how
// it went.
func (s *Service) syncOnce(ctx context.Context, unsynced *outage.Log) {
	tryCtx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	unsynced.Outcome(ctx, s.Sync(tryCtx))
}
