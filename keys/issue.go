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
	if err := checkDeveloper(dev, actor); err != nil {
		return Issued{}, err
	}
	var issued Issued
	err := s.transition(ctx, subject{dev.DiscordUserID, dev.DisplayName, true}, func(c *change) error {
		if c.developer.Blacklisted {
			return models.ErrDeveloperBlacklisted
		}
		key, err := c.currentKey()
		if err != nil {
			return err
		}
		if key == nil {
			key, raw, err := c.issueKey()
			if err != nil {
				return err
			}
			issued = Issued{Key: raw, KeyID: key.ID, Created: true}
			return c.record(models.KeyActionIssued, key, actor, "")
		}
		raw, err := c.reveal(key)
		if err != nil {
			return err
		}
		issued = Issued{Key: raw, KeyID: key.ID}
		if key.State != models.KeyDisabled {
			return nil
		}
		issued.Reenabled = true
		if err := c.setKeyState(key, models.KeyActive, ""); err != nil {
			return err
		}
		return c.record(models.KeyActionReenabled, key, actor, "")
	})
	if err != nil {
		return Issued{}, err
	}
	return issued, nil
}

// Regenerate gives the developer a new key; their current key becomes
// unknown at once (state replaced). A blacklisted developer gets
// models.ErrDeveloperBlacklisted.
func (s *Service) Regenerate(ctx context.Context, dev Developer, actor string) (Issued, error) {
	if err := checkDeveloper(dev, actor); err != nil {
		return Issued{}, err
	}
	var issued Issued
	err := s.transition(ctx, subject{dev.DiscordUserID, dev.DisplayName, true}, func(c *change) error {
		if c.developer.Blacklisted {
			return models.ErrDeveloperBlacklisted
		}
		old, err := c.currentKey()
		if err != nil {
			return err
		}
		action, reason := models.KeyActionIssued, ""
		if old != nil {
			action, reason = models.KeyActionRegenerated, fmt.Sprintf("replaces key %d", old.ID)
			if err := c.setKeyState(old, models.KeyReplaced, "regenerated"); err != nil {
				return err
			}
		}
		key, raw, err := c.issueKey()
		if err != nil {
			return err
		}
		issued = Issued{Key: raw, KeyID: key.ID, Created: true}
		return c.record(action, key, actor, reason)
	})
	if err != nil {
		return Issued{}, err
	}
	return issued, nil
}
