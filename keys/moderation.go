package keys

import (
	"context"
	"slices"

	"github.com/crownsdev/crowns/models"
)

// Disable disables the developer's active key because its owner left the
// community server; IssueOrRemind re-enables the same key later. Without
// an active key nothing changes. An unknown developer is
// models.ErrNotFound.
func (s *Service) Disable(ctx context.Context, discordUserID, actor, reason string) error {
	return s.moveCurrentKey(ctx, discordUserID, actor, reason, models.KeyDisabled, models.KeyActionDisabled, models.KeyActive)
}

// Revoke withdraws the developer's current key (it becomes unknown); they
// may ask for a new one. A moderator or the owners themselves do it. Without a current key nothing changes. An
// unknown developer is models.ErrNotFound.
func (s *Service) Revoke(ctx context.Context, discordUserID, actor, reason string) error {
	return s.moveCurrentKey(ctx, discordUserID, actor, reason, models.KeyRevoked, models.KeyActionRevoked, models.KeyActive, models.KeyDisabled)
}

// moveCurrentKey moves the developer's current key to state `to` and
// records action, when the key is in one of the states `from`; otherwise
// it changes nothing.
func (s *Service) moveCurrentKey(ctx context.Context, discordUserID, actor, reason string, to models.KeyState, action models.KeyAction, from ...models.KeyState) error {
	if err := checkTransition(discordUserID, actor, reason); err != nil {
		return err
	}
	return s.transition(ctx, subject{discordUserID: discordUserID}, func(c *change) error {
		key, err := c.currentKey()
		if err != nil {
			return err
		}
		if key == nil || !slices.Contains(from, key.State) {
			return nil
		}
		if err := c.setKeyState(key, to, reason); err != nil {
			return err
		}
		return c.record(action, key, actor, reason)
	})
}

// Blacklist forbids the developer keys, recording them first if they never
// asked for one; their current key becomes blacklisted (403 forever, even
// after Unblacklist). Blacklisting a blacklisted developer changes
// nothing (the first reason stays) and is models.ErrDeveloperBlacklisted,
// so that the one asking is not told it was done.
func (s *Service) Blacklist(ctx context.Context, discordUserID, reason, moderator string) error {
	if err := checkTransition(discordUserID, moderator, reason); err != nil {
		return err
	}
	return s.transition(ctx, subject{discordUserID: discordUserID, createIfMissing: true}, func(c *change) error {
		if c.developer.Blacklisted {
			return models.ErrDeveloperBlacklisted
		}
		blacklistedAt := c.now
		c.developer.Blacklisted, c.developer.BlacklistReason, c.developer.BlacklistedBy, c.developer.BlacklistedAt = true, reason, moderator, &blacklistedAt
		if err := c.updateDeveloper(); err != nil {
			return err
		}
		key, err := c.currentKey()
		if err != nil {
			return err
		}
		if key != nil {
			if err := c.setKeyState(key, models.KeyBlacklisted, reason); err != nil {
				return err
			}
		}
		return c.record(models.KeyActionBlacklisted, key, moderator, reason)
	})
}

// Unblacklist lets the developer ask for a key again; they then get a new
// one, as their old key stays blacklisted. An unknown developer is
// models.ErrNotFound; one who is not blacklisted is left unchanged.
func (s *Service) Unblacklist(ctx context.Context, discordUserID, moderator string) error {
	if err := checkTransition(discordUserID, moderator, ""); err != nil {
		return err
	}
	return s.transition(ctx, subject{discordUserID: discordUserID}, func(c *change) error {
		if !c.developer.Blacklisted {
			return nil
		}
		c.developer.Blacklisted, c.developer.BlacklistReason, c.developer.BlacklistedBy, c.developer.BlacklistedAt = false, "", "", nil
		if err := c.updateDeveloper(); err != nil {
			return err
		}
		return c.record(models.KeyActionUnblacklisted, nil, moderator, "")
	})
}
