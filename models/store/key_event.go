package store

import (
	"context"

	"github.com/crownsdev/crowns/models"
)

// KeyEventsAfter returns up to limit events whose id is greater than
// afterID, in id order: the way to read the outbox from a remembered
// position. Writers of key_events serialise their transactions (see
// KeyTransition), so ids become visible in commit order and a reader never
// skips past an event that commits later.
func (s *Store) KeyEventsAfter(ctx context.Context, afterID int64, limit int) ([]models.KeyEvent, error) {
	var events []models.KeyEvent
	err := s.session(ctx).Where("id > ?", afterID).Order("id").Limit(limit).Find(&events).Error
	return events, s.translate(err)
}

// LastKeyEventID is the id of the latest event (0 when there is none):
// where a reader of the outbox that cares only about what comes next
// starts.
func (s *Store) LastKeyEventID(ctx context.Context) (int64, error) {
	var id int64
	err := s.session(ctx).Raw(`SELECT COALESCE(MAX(id), 0) FROM key_events`).Scan(&id).Error
	return id, s.translate(err)
}
