package models

import (
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
	// KeyActionRevoked: the current key was withdrawn by a moderator, by
	// its owner, or because a leaked-key report found it published.
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
