package models

import "time"

// KeyStanding is what the database says of a key found by its digest: its
// state and its owner's.
type KeyStanding struct {
	KeyID                int64
	DeveloperID          int64
	State                KeyState
	DiscordUserID        string
	DeveloperBlacklisted bool
}

// KeyTransaction is one key transition's transaction: the reads and
// writes of developer, key and key-event rows it may make. The store
// gives one to the function that makes a transition; it is valid only
// inside that function. A missing row is ErrNotFound.
type KeyTransaction interface {
	// Developer returns the developer of a Discord user.
	Developer(discordUserID string) (Developer, error)
	// CreateDeveloper writes a new developer row; UpdateDeveloper writes
	// what may change of one: its display name, blacklisting and update
	// time.
	CreateDeveloper(developer *Developer) error
	UpdateDeveloper(developer *Developer) error
	// CurrentKey is the developer's active or disabled key, or nil.
	CurrentKey(developerID int64) (*APIKey, error)
	// KeyByDigest is the key of a lookup digest, or nil.
	KeyByDigest(digest []byte) (*APIKey, error)
	// CreateKey and SetKeyState write a key row.
	CreateKey(key *APIKey) error
	SetKeyState(key *APIKey, state KeyState, reason string, at time.Time) error
	// CreateKeyEvent records a transition in the key-event outbox.
	CreateKeyEvent(event *KeyEvent) error
	// KeyDigests are the lookup digests of every key of a developer.
	KeyDigests(developerID int64) ([][]byte, error)
}
