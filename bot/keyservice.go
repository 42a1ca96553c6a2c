package bot

import (
	"context"
	"time"
)

// KeyService is what the bot needs of the developer-key service.
type KeyService interface {
	// IssueOrRemind gives the developer their current key, creating one
	// (or re-enabling a disabled one) when needed.
	IssueOrRemind(ctx context.Context, developer Developer, actor string) (Issued, error)
	// Regenerate replaces the developer's current key with a new one.
	Regenerate(ctx context.Context, developer Developer, actor string) (Issued, error)
	// Disable switches off the developer's active key (they left).
	Disable(ctx context.Context, discordUserID, actor, reason string) error
	// Revoke withdraws the developer's current key.
	Revoke(ctx context.Context, discordUserID, actor, reason string) error
	// Blacklist forbids the developer any key.
	Blacklist(ctx context.Context, discordUserID, reason, moderator string) error
	// Unblacklist lets the developer ask for a key again.
	Unblacklist(ctx context.Context, discordUserID, moderator string) error
	// Info describes a developer, never with a key.
	Info(ctx context.Context, discordUserID string) (DeveloperInfo, error)
	// DevelopersWithActiveKeys lists whose keys reconciliation checks.
	DevelopersWithActiveKeys(ctx context.Context) ([]string, error)
	// Events reads the outbox of key transitions after afterID, in order.
	Events(ctx context.Context, afterID int64, limit int) ([]KeyEvent, error)
}

// Developer is who asks for a key.
type Developer struct {
	DiscordUserID string
	DisplayName   string
}

// Issued is a key handed to its owner, and how it came to be.
type Issued struct {
	Key       string
	Created   bool
	Reenabled bool
}

// DeveloperState summarises where a developer stands.
type DeveloperState string

// The developer states.
const (
	DeveloperActive      DeveloperState = "active"
	DeveloperDisabled    DeveloperState = "disabled"
	DeveloperBlacklisted DeveloperState = "blacklisted"
	DeveloperWithoutKey  DeveloperState = "no key"
)

// DeveloperInfo is what may be shown about a developer.
type DeveloperInfo struct {
	DeveloperID     int64
	DiscordUserID   string
	DisplayName     string
	State           DeveloperState
	CreatedAt       time.Time
	CurrentKeyID    int64
	KeyCreatedAt    *time.Time
	LastUsedAt      *time.Time
	BlacklistReason string
	BlacklistedBy   string
	BlacklistedAt   *time.Time
}

// KeyAction names a transition.
type KeyAction string

// KeyEvent is a row of the key-event outbox.
type KeyEvent struct {
	ID            int64
	DeveloperID   int64
	DiscordUserID string
	KeyID         *int64
	Action        KeyAction
	Actor         string
	Reason        string
	CreatedAt     time.Time
}

// The recorded transitions.
const (
	KeyActionIssued        KeyAction = "issued"
	KeyActionReenabled     KeyAction = "reenabled"
	KeyActionRegenerated   KeyAction = "regenerated"
	KeyActionDisabled      KeyAction = "disabled"
	KeyActionRevoked       KeyAction = "revoked"
	KeyActionBlacklisted   KeyAction = "blacklisted"
	KeyActionUnblacklisted KeyAction = "unblacklisted"
)
