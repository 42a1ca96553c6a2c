package keys

import (
	"context"
	"sync"
	"time"

	"github.com/crownsdev/crowns/models"
)

// Event is a committed transition, as delivered to Subscribe listeners.
type Event struct {
	// ID is the event's row in key_events.
	ID int64
	// Action is the transition (issued, regenerated, disabled...).
	Action models.KeyAction
	// DiscordUserID is the developer whose key it concerns.
	DiscordUserID string
	// KeyID is the key concerned (for a regeneration, the new key); 0 when
	// the developer had none.
	KeyID int64
	// Actor is who caused it, like "discord:123" or "cli".
	Actor string
	// Reason is the actor's stated reason; empty when none was given.
	Reason string
	// At is when the transition happened: its row's creation time.
	At time.Time
}

// Default and bound of the number of events Events returns.
const (
	defaultEventsLimit = 100
	maxEventsLimit     = 1000
)

// listeners is the in-process fan-out of committed transitions.
type listeners struct {
	mu   sync.RWMutex
	next int
	fns  map[int]func(Event)
}

// Subscribe calls fn with every transition this Service commits, after the
// commit, on the goroutine that made it: fn must return quickly (hand slow
// work to a goroutine of its own). Transitions made by other processes are
// not seen here; read them with Events. The returned function
// unsubscribes.
func (s *Service) Subscribe(fn func(Event)) (unsubscribe func()) {
	s.listeners.mu.Lock()
	defer s.listeners.mu.Unlock()
	if s.listeners.fns == nil {
		s.listeners.fns = make(map[int]func(Event))
	}
	id := s.listeners.next
	s.listeners.next++
	s.listeners.fns[id] = fn
	return func() {
		s.listeners.mu.Lock()
		defer s.listeners.mu.Unlock()
		delete(s.listeners.fns, id)
	}
}

// announce hands committed events to the listeners.
func (s *Service) announce(events []models.KeyEvent) {
	s.listeners.mu.RLock()
	fns := make([]func(Event), 0, len(s.listeners.fns))
	for _, fn := range s.listeners.fns {
		fns = append(fns, fn)
	}
	s.listeners.mu.RUnlock()
	for _, row := range events {
		event := eventOf(row)
		s.log.Info("developer key transition", "action", event.Action, "discord_user", event.DiscordUserID,
			"key_id", event.KeyID, "actor", event.Actor, "reason", event.Reason)
		for _, fn := range fns {
			fn(event)
		}
	}
}

func eventOf(row models.KeyEvent) Event {
	event := Event{
		ID:            row.ID,
		Action:        row.Action,
		DiscordUserID: row.DiscordUserID,
		Actor:         row.Actor,
		Reason:        row.Reason,
		At:            row.CreatedAt,
	}
	if row.KeyID != nil {
		event.KeyID = *row.KeyID
	}
	return event
}

// Events reads the key_events outbox: up to limit events after afterID, in
// id order (limit ≤ 0 means 100; at most 1000). Ids become visible in
// commit order, so a reader that remembers the last id it handled misses
// nothing.
func (s *Service) Events(ctx context.Context, afterID int64, limit int) ([]models.KeyEvent, error) {
	if limit <= 0 {
		limit = defaultEventsLimit
	}
	limit = min(limit, maxEventsLimit)
	return s.db.KeyEventsAfter(ctx, afterID, limit)
}
