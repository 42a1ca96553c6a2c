package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"

	"github.com/crownsdev/crowns/models"
	"gorm.io/gorm"
)

// clanChanges fans the clan changes of this process (and, through the
// listener, of other processes) out to subscribers.
type clanChanges struct {
	// origin names this Store in its notifications, so the listener
	// skips the ones it sent itself (already announced in-process).
	origin string

	mu          sync.RWMutex
	next        int
	subscribers []clanSubscriber
}

// clanSubscriber is one subscription, in the order they were made.
type clanSubscriber struct {
	id int
	fn func(models.ClanChange)
}

func newClanChanges() *clanChanges {
	origin := make([]byte, 8)
	_, _ = rand.Read(origin)
	return &clanChanges{origin: hex.EncodeToString(origin)}
}

// SubscribeClanChanges calls fn with every clan change: at once, on the
// writer's goroutine after the commit, for writes through this Store;
// and from ListenForClanChanges for writes of other processes on
// PostgreSQL. Subscribers are called one after the other in the order
// they subscribed; fn must return quickly. The returned function
// unsubscribes.
func (s *Store) SubscribeClanChanges(fn func(models.ClanChange)) (unsubscribe func()) {
	f := s.changes
	f.mu.Lock()
	defer f.mu.Unlock()
	id := f.next
	f.next++
	// Copy on write: announce reads the slice without holding the lock.
	f.subscribers = append(slices.Clip(f.subscribers), clanSubscriber{id: id, fn: fn})
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.subscribers = slices.DeleteFunc(slices.Clone(f.subscribers), func(sub clanSubscriber) bool { return sub.id == id })
	}
}

// announce hands a change to every subscriber.
func (f *clanChanges) announce(change models.ClanChange) {
	f.mu.RLock()
	subscribers := f.subscribers
	f.mu.RUnlock()
	for _, s := range subscribers {
		s.fn(change)
	}
}

// clanChanged announces, after a committed write, that tag changed.
func (s *Store) clanChanged(tag string) { s.changes.announce(models.ClanChange{Tag: tag}) }

// notifyClanChange tells the other processes on the same database,
// inside the write's transaction (so they hear of it if and only if the
// write commits), that tag changed: a NOTIFY on PostgreSQL, a row of the
// clan_changes outbox on SQLite.
func (s *Store) notifyClanChange(tx *gorm.DB, tag string) error {
	if s.changeChannel == "" {
		if err := tx.Exec(`INSERT INTO clan_changes (origin, tag, changed_at) VALUES (?, ?, ?)`,
			s.changes.origin, tag, s.clock.Now().Unix()).Error; err != nil {
			return fmt.Errorf("record clan change: %w", err)
		}
		return nil
	}
	if err := tx.Exec(`SELECT pg_notify(?, ?)`, s.changeChannel, s.changes.origin+" "+tag).Error; err != nil {
		return fmt.Errorf("notify clan change: %w", err)
	}
	return nil
}

// ClanChangeChannel is the PostgreSQL NOTIFY channel on which writers
// announce clan changes (payload: the writer's origin id, a space, the
// clan tag); empty on SQLite. `LISTEN "<channel>"` in psql shows them.
func (s *Store) ClanChangeChannel() string { return s.changeChannel }

// clanChangeChannel names the NOTIFY channel of clan changes. Channels
// are per database, not per schema, so the name carries a digest of the
// current schema: deployments in different schemas of one database do
// not hear each other.
func (s *Store) clanChangeChannel(ctx context.Context) (string, error) {
	var schema string
	if err := s.session(ctx).Raw(`SELECT current_schema()`).Scan(&schema).Error; err != nil {
		return "", fmt.Errorf("read the current schema: %w", s.translate(err))
	}
	sum := sha256.Sum256([]byte(schema))
	return "crowns_clans_" + hex.EncodeToString(sum[:8]), nil
}
