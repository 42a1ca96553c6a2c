package models

import (
	"context"
	"time"
)

// KeyAction names a transition of a developer or key in key_events.
type KeyAction string

// The recorded transitions. Reminders of an existing key change nothing
// and are not recorded.
const (
	// KeyActionIssued: a developer without a current key got a new one.
	KeyActionIssued KeyAction = "issued"
	// KeyActionReenabled: a disabled key became active again.
	KeyActionReenabled KeyAction = "reenabled"
	// KeyActionRegenerated: the current key was replaced by a new one.
	KeyActionRegenerated KeyAction = "regenerated"
	// KeyActionDisabled: the owner left the community server.
	KeyActionDisabled KeyAction = "disabled"
	// KeyActionRevoked: a moderator withdrew the current key.
	KeyActionRevoked KeyAction = "revoked"
	// KeyActionBlacklisted: the developer was blacklisted, with the key
	// it forbade when there was one.
	KeyActionBlacklisted KeyAction = "blacklisted"
	// KeyActionUnblacklisted: the developer may ask for a key again.
	KeyActionUnblacklisted KeyAction = "unblacklisted"
)

// KeyEvent is a row of key_events: who did what to which developer's key,
// when and why. It is written in the same transaction as the change it
// records, so the table is also an outbox other processes can read in id
// order.
type KeyEvent struct {
	ID            int64  `gorm:"primaryKey"`
	DeveloperID   int64  `gorm:"not null"`
	DiscordUserID string `gorm:"not null"`
	// KeyID is the key the transition concerns (for a regeneration, the
	// new key); nil when the developer had none.
	KeyID  *int64
	Action KeyAction `gorm:"not null"`
	// Actor is who caused it, like "discord:123", "cli" or "bot".
	Actor     string    `gorm:"not null"`
	Reason    string    `gorm:"not null"`
	CreatedAt time.Time `gorm:"autoCreateTime:false"`
}

// TableName names the key_events table.
func (KeyEvent) TableName() string { return "key_events" }

// KeyEventsAfter returns up to limit events whose id is greater than
// afterID, in id order: the way to read the outbox from a remembered
// position. Writers of key_events serialise their transactions (see
// package keys), so ids become visible in commit order and a reader never
// skips past an event that commits later.
func (s *Store) KeyEventsAfter(ctx context.Context, afterID int64, limit int) ([]KeyEvent, error) {
	var events []KeyEvent
	err := s.DB(ctx).Where("id > ?", afterID).Order("id").Limit(limit).Find(&events).Error
	return events, s.translate(err)
}

// LastKeyEventID is the id of the latest event (0 when there is none):
// where a reader of the outbox that cares only about what comes next
// starts.
func (s *Store) LastKeyEventID(ctx context.Context) (int64, error) {
	var id int64
	err := s.DB(ctx).Raw(`SELECT COALESCE(MAX(id), 0) FROM key_events`).Scan(&id).Error
	return id, s.translate(err)
}
