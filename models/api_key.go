package models

import (
	"time"
)

// KeyState is the lifecycle state of one API key.
type KeyState string

// The states of a key. Active and disabled keys are "current": a developer
// has at most one current key (the api_keys_one_current index).
const (
	// KeyActive keys authenticate.
	KeyActive KeyState = "active"
	// KeyDisabled keys belong to a developer who left the community
	// server; the same key comes back when they ask again.
	KeyDisabled KeyState = "disabled"
	// KeyReplaced keys were superseded by a regenerated key: unknown.
	KeyReplaced KeyState = "replaced"
	// KeyRevoked keys were withdrawn by a moderator: unknown.
	KeyRevoked KeyState = "revoked"
	// KeyBlacklisted keys belonged to a developer when they were
	// blacklisted; they stay forbidden even after an unblacklist.
	KeyBlacklisted KeyState = "blacklisted"
)

// KeyStates lists every key state, in lifecycle order, for displays.
func KeyStates() []KeyState {
	return []KeyState{KeyActive, KeyDisabled, KeyReplaced, KeyRevoked, KeyBlacklisted}
}

// Current reports whether a key in this state is its developer's current
// key (active or disabled).
func (s KeyState) Current() bool { return s == KeyActive || s == KeyDisabled }

// APIKey is a row of api_keys. It never holds the key's plaintext: Digest
// is the keyed lookup digest and Sealed the nonce-prefixed AES-GCM
// ciphertext that lets the owner be reminded of the key.
type APIKey struct {
	ID          int64    `gorm:"primaryKey"`
	DeveloperID int64    `gorm:"not null"`
	Digest      []byte   `gorm:"not null"`
	Sealed      []byte   `gorm:"not null"`
	State       KeyState `gorm:"not null"`
	// StateReason says why the key entered its state, when someone said.
	StateReason    string    `gorm:"not null"`
	CreatedAt      time.Time `gorm:"autoCreateTime:false"`
	StateChangedAt time.Time `gorm:"not null"`
	// LastUsedAt is the latest successful verification, written in
	// batches: it may lag behind by the flush interval.
	LastUsedAt *time.Time
}

// TableName names the api_keys table.
func (APIKey) TableName() string { return "api_keys" }
