package models

import (
	"time"
)

// DeveloperState summarises where a developer stands, for the bot and the
// command line.
type DeveloperState string

// The developer states, derived from the blacklist flag and the current
// key.
const (
	// DeveloperActive: the current key authenticates.
	DeveloperActive DeveloperState = "active"
	// DeveloperDisabled: the current key is disabled (the developer left
	// the community server).
	DeveloperDisabled DeveloperState = "disabled"
	// DeveloperBlacklisted: the developer may not hold a key.
	DeveloperBlacklisted DeveloperState = "blacklisted"
	// DeveloperWithoutKey: no current key (never issued, or revoked).
	DeveloperWithoutKey DeveloperState = "no key"
)

// DeveloperInfo is what may be shown about a developer: never a key, not
// even its digest.
type DeveloperInfo struct {
	DeveloperID   int64
	DiscordUserID string
	DisplayName   string
	State         DeveloperState
	// CreatedAt is when the developer was first recorded.
	CreatedAt time.Time
	// CurrentKeyID and KeyCreatedAt describe the current (active or
	// disabled) key; zero and nil when there is none.
	CurrentKeyID int64
	KeyCreatedAt *time.Time
	// LatestKeyID is the developer's newest key whatever its state (the
	// current one, or a revoked or blacklisted one); zero when none.
	LatestKeyID int64
	// LastUsedAt is the latest use of any of the developer's keys, as of
	// the last flush of usage; nil when never used.
	LastUsedAt      *time.Time
	BlacklistReason string
	BlacklistedBy   string
	BlacklistedAt   *time.Time
	// KeyCounts counts the developer's keys by state; states without keys
	// are absent.
	KeyCounts map[KeyState]int
}
