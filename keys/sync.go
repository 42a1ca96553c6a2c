package keys

import (
	"context"
	"sync"

	"github.com/crownsdev/crowns/models"
)

// eventFeed is where Sync is in the key_events outbox.
type eventFeed struct {
	mu      sync.Mutex
	started bool
	// cursor is the id of the last event read.
	cursor int64
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
		last, err := s.store.LastKeyEventID(ctx)
		if err != nil {
			return err
		}
		s.cache.forgetAll()
		s.feed.cursor, s.feed.started = last, true
		s.cache.synced.Store(start)
		return nil
	}
	for {
		events, err := s.store.KeyEventsAfter(ctx, s.feed.cursor, maxEventsLimit)
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
		if len(events) < maxEventsLimit {
			break
		}
	}
	s.cache.synced.Store(start)
	return nil
}

// forgetDevelopers drops the cached verdicts of every key of the
// developers these events concern.
func (s *Service) forgetDevelopers(ctx context.Context, events []models.KeyEvent) error {
	seen := make(map[int64]bool, len(events))
	developers := make([]int64, 0, len(events))
	for _, e := range events {
		if !seen[e.DeveloperID] {
			seen[e.DeveloperID] = true
			developers = append(developers, e.DeveloperID)
		}
	}
	digests, err := s.store.KeyDigestsOfDevelopers(ctx, developers)
	if err != nil {
		return err
	}
	s.cache.forget(digests)
	return nil
}

func (s *Service) syncLogged(ctx context.Context) {
	if err := s.Sync(ctx); err != nil && ctx.Err() == nil {
		s.log.WarnContext(ctx, "cannot read key events; cached key checks fall back to a 5 s lifetime", "error", err)
	}
}
