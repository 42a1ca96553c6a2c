package keys

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/crownsdev/crowns/models"
)

// Disable disables the developer's active key because its owner left the
// community server; IssueOrRemind re-enables the same key later. Without
// an active key nothing changes. An unknown developer is
// models.ErrNotFound.
func (s *Service) Disable(ctx context.Context, discordUserID, actor, reason string) error {
	return s.moveCurrentKey(ctx, discordUserID, actor, reason, keyMove{
		to: models.KeyDisabled, action: models.KeyActionDisabled, from: []models.KeyState{models.KeyActive},
	})
}

// Revoke withdraws the developer's current key (it becomes unknown); they
// may ask for a new one. A moderator or the owners themselves do it. It
// changes nothing and is ErrNoKeyToRevoke for a developer without a key
// in use (none yet, or revoked already), models.ErrDeveloperBlacklisted
// for a blacklisted one (their key stays refused), and models.ErrNotFound
// for an unknown one: the one asking is never told it was done.
func (s *Service) Revoke(ctx context.Context, discordUserID, actor, reason string) error {
	return s.moveCurrentKey(ctx, discordUserID, actor, reason, keyMove{
		to: models.KeyRevoked, action: models.KeyActionRevoked, from: []models.KeyState{models.KeyActive, models.KeyDisabled},
		refuse: true,
	})
}

// ErrNoKeyToRevoke is Revoke's answer for a developer without a key in
// use: nothing was revoked.
var ErrNoKeyToRevoke = fmt.Errorf("no current key to revoke: %w", models.ErrNotFound)

// ErrNotBlacklisted is Unblacklist's answer for a developer who is not
// blacklisted: nothing changed.
var ErrNotBlacklisted = errors.New("developer is not blacklisted")

// keyMove is a change of a developer's current key: to state to,
// recorded as action, when the key is in one of the states from.
type keyMove struct {
	to     models.KeyState
	action models.KeyAction
	from   []models.KeyState
	// refuse: a developer whose key cannot move is an error (see Revoke);
	// otherwise the move changes nothing, silently.
	refuse bool
}

// moveCurrentKey moves the developer's current key as move says, when the
// key is in one of its from states; otherwise it changes nothing.
func (s *Service) moveCurrentKey(ctx context.Context, discordUserID, actor, reason string, move keyMove) error {
	if err := checkTransition(discordUserID, actor, reason); err != nil {
		return err
	}
	actor, reason = models.StorableText(actor), storableReason(reason)
	return s.transition(ctx, subject{discordUserID: discordUserID}, func(c *change) error {
		key, err := c.currentKey()
		if err != nil {
			return err
		}
		switch {
		case move.refuse && c.developer.Blacklisted:
			return models.ErrDeveloperBlacklisted
		case (key == nil || !slices.Contains(move.from, key.State)) && move.refuse:
			return ErrNoKeyToRevoke
		case key == nil || !slices.Contains(move.from, key.State):
			return nil
		}
		if err := c.setKeyState(key, move.to, reason); err != nil {
			return err
		}
		return c.record(move.action, key, actor, reason)
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
	reason, moderator = storableReason(reason), models.StorableText(moderator)
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
// models.ErrNotFound; one who is not blacklisted is left unchanged, and is
// ErrNotBlacklisted.
func (s *Service) Unblacklist(ctx context.Context, discordUserID, moderator string) error {
	if err := checkTransition(discordUserID, moderator, ""); err != nil {
		return err
	}
	moderator = models.StorableText(moderator)
	return s.transition(ctx, subject{discordUserID: discordUserID}, func(c *change) error {
		if !c.developer.Blacklisted {
			return ErrNotBlacklisted
		}
		c.developer.Blacklisted, c.developer.BlacklistReason, c.developer.BlacklistedBy, c.developer.BlacklistedAt = false, "", "", nil
		if err := c.updateDeveloper(); err != nil {
			return err
		}
		return c.record(models.KeyActionUnblacklisted, nil, moderator, "")
	})
}
