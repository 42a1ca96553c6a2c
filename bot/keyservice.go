package bot

import (
	"context"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// KeyService is what the bot needs of the developer-key service;
// *keys.Service implements it.
type KeyService interface {
	// IssueOrRemind gives the developer their current key, creating one
	// or re-enabling a disabled one when needed.
	IssueOrRemind(ctx context.Context, developer keys.Developer, actor string) (keys.Issued, error)
	// Regenerate replaces the developer's current key with a new one.
	Regenerate(ctx context.Context, developer keys.Developer, actor string) (keys.Issued, error)
	// Disable switches off the developer's active key: they left.
	Disable(ctx context.Context, discordUserID, actor, reason string) error
	// Revoke withdraws the developer's current key.
	Revoke(ctx context.Context, discordUserID, actor, reason string) error
	// Blacklist forbids the developer any key.
	Blacklist(ctx context.Context, discordUserID, reason, moderator string) error
	// Unblacklist lets the developer ask for a key again.
	Unblacklist(ctx context.Context, discordUserID, moderator string) error
	// Info describes a developer, never with a key.
	Info(ctx context.Context, discordUserID string) (keys.DeveloperInfo, error)
	// DevelopersWithActiveKeys lists whose keys reconciliation checks.
	DevelopersWithActiveKeys(ctx context.Context) ([]string, error)
	// Events reads the outbox of key transitions after afterID, in order.
	Events(ctx context.Context, afterID int64, limit int) ([]models.KeyEvent, error)
	// Subscribe calls fn after every transition made in this process.
	Subscribe(fn func(keys.Event)) (unsubscribe func())
}
