package keys

import (
	"context"
	"fmt"

	"github.com/crownsdev/crowns/models"
)

// Developer is someone asking for a key.
type Developer struct {
	// DiscordUserID is the Discord snowflake (1 to 20 digits).
	DiscordUserID string
	// DisplayName, when not empty, updates the stored name.
	DisplayName string
}

// Issued is the answer to a key request. Key is the plaintext: hand it to
// its owner and forget it; never log it.
type Issued struct {
	// Key is the plaintext key; KeyID its row.
	Key   string
	KeyID int64
	// Created is true for a key made by this request.
	Created bool
	// Reenabled is true when a disabled key became active again.
	Reenabled bool
}

// IssueOrRemind gives the developer their key: the active one (a
// reminder, decrypted from storage), the disabled one re-enabled with the
// same plaintext (they came back to the community server), or a new one
// when they have none. A blacklisted developer gets
// models.ErrDeveloperBlacklisted. Concurrent requests of one developer
// all return the same key.
func (s *Service) IssueOrRemind(ctx context.Context, dev Developer, actor string) (Issued, error) {
	return s.keyRequest(ctx, dev, actor, func(c *change, current *models.APIKey, actor string) (Issued, error) {
		if current == nil {
			key, raw, err := c.issueKey()
			if err != nil {
				return Issued{}, err
			}
			return Issued{Key: raw, KeyID: key.ID, Created: true}, c.record(models.KeyActionIssued, key, actor, "")
		}
		raw, err := c.reveal(current)
		if err != nil {
			return Issued{}, err
		}
		if current.State != models.KeyDisabled {
			return Issued{Key: raw, KeyID: current.ID}, nil
		}
		if err := c.setKeyState(current, models.KeyActive, ""); err != nil {
			return Issued{}, err
		}
		return Issued{Key: raw, KeyID: current.ID, Reenabled: true}, c.record(models.KeyActionReenabled, current, actor, "")
	})
}

// Regenerate gives the developer a new key; their current key becomes
// unknown at once (state replaced). A blacklisted developer gets
// models.ErrDeveloperBlacklisted.
func (s *Service) Regenerate(ctx context.Context, dev Developer, actor string) (Issued, error) {
	return s.keyRequest(ctx, dev, actor, func(c *change, current *models.APIKey, actor string) (Issued, error) {
		action, reason := models.KeyActionIssued, ""
		if current != nil {
			action, reason = models.KeyActionRegenerated, fmt.Sprintf("replaces key %d", current.ID)
			if err := c.setKeyState(current, models.KeyReplaced, "regenerated"); err != nil {
				return Issued{}, err
			}
		}
		key, raw, err := c.issueKey()
		if err != nil {
			return Issued{}, err
		}
		return Issued{Key: raw, KeyID: key.ID, Created: true}, c.record(action, key, actor, reason)
	})
}

// keyRequest runs the transition of a developer asking for a key: it
// records an unknown developer, refuses a blacklisted one, and lets
// decide hand out a key given the current one (nil when none) and the
// actor as it is stored.
func (s *Service) keyRequest(ctx context.Context, dev Developer, actor string, decide func(c *change, current *models.APIKey, actor string) (Issued, error)) (Issued, error) {
	if err := checkDeveloper(dev, actor); err != nil {
		return Issued{}, err
	}
	dev.DisplayName, actor = models.StorableText(dev.DisplayName), models.StorableText(actor)
	var issued Issued
	who := subject{discordUserID: dev.DiscordUserID, displayName: dev.DisplayName, createIfMissing: true}
	err := s.transition(ctx, who, func(c *change) error {
		if c.developer.Blacklisted {
			return models.ErrDeveloperBlacklisted
		}
		current, err := c.currentKey()
		if err != nil {
			return err
		}
		issued, err = decide(c, current, actor)
		return err
	})
	if err != nil {
		return Issued{}, err
	}
	return issued, nil
}
