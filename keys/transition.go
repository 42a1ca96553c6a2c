package keys

import (
	"context"
	"errors"
	"time"

	"github.com/crownsdev/crowns/models"
)

// subject names the developer a transition is about.
type subject struct {
	discordUserID string
	// displayName, when not empty, replaces the stored one.
	displayName string
	// createIfMissing records an unknown developer instead of failing
	// with models.ErrNotFound.
	createIfMissing bool
}

// change is one transition in progress: its transaction, its time, the
// developer's row and the events recorded so far.
type change struct {
	ring      *keyring
	tx        models.KeyTransaction
	now       time.Time
	developer models.Developer
	events    []models.KeyEvent
}

// transition runs apply in one transaction with the developer's row
// loaded (the store tries it again on a unique violation). After the
// commit it drops the developer's keys from the verification cache, so
// this process answers from the new state on its very next request, and
// announces the events.
func (s *Service) transition(ctx context.Context, who subject, apply func(*change) error) error {
	var (
		done    *change
		digests [][]byte
	)
	err := s.db.KeyTransition(ctx, func(tx models.KeyTransaction) error {
		done = &change{ring: s.ring, tx: tx, now: s.clock.Now()}
		if err := done.loadDeveloper(who); err != nil {
			return err
		}
		if err := apply(done); err != nil {
			return err
		}
		var err error
		digests, err = tx.KeyDigests(done.developer.ID)
		return err
	})
	if err != nil {
		return err
	}
	s.cache.forget(digests)
	s.feed.committed(done.events)
	s.announce(done.events)
	return nil
}

// loadDeveloper reads (or records) the developer and keeps its display
// name current.
func (c *change) loadDeveloper(who subject) error {
	var err error
	c.developer, err = c.tx.Developer(who.discordUserID)
	if errors.Is(err, models.ErrNotFound) && who.createIfMissing {
		if err := CheckDiscordUserID(who.discordUserID); err != nil {
			return err
		}
		c.developer = models.Developer{
			DiscordUserID: who.discordUserID,
			DisplayName:   who.displayName,
			CreatedAt:     c.now,
			UpdatedAt:     c.now,
		}
		return c.tx.CreateDeveloper(&c.developer)
	}
	if err != nil {
		return err
	}
	if who.displayName != "" && who.displayName != c.developer.DisplayName {
		c.developer.DisplayName = who.displayName
		return c.updateDeveloper()
	}
	return nil
}

// updateDeveloper writes the developer as changed, updated now.
func (c *change) updateDeveloper() error {
	c.developer.UpdatedAt = c.now
	return c.tx.UpdateDeveloper(&c.developer)
}

// currentKey returns the developer's active or disabled key, or nil.
func (c *change) currentKey() (*models.APIKey, error) {
	return c.tx.CurrentKey(c.developer.ID)
}

// issueKey stores a new active key and returns it with its plaintext.
func (c *change) issueKey() (*models.APIKey, string, error) {
	raw, err := NewKey()
	if err != nil {
		return nil, "", err
	}
	lookup := c.ring.digest(raw)
	key := &models.APIKey{
		DeveloperID:    c.developer.ID,
		Digest:         lookup[:],
		Sealed:         c.ring.seal(raw, lookup),
		State:          models.KeyActive,
		CreatedAt:      c.now,
		StateChangedAt: c.now,
	}
	if err := c.tx.CreateKey(key); err != nil {
		return nil, "", err
	}
	return key, raw, nil
}

// reveal decrypts a stored key for its owner.
func (c *change) reveal(key *models.APIKey) (string, error) {
	var lookup digest
	copy(lookup[:], key.Digest)
	return c.ring.open(key.Sealed, lookup)
}

// setKeyState moves key to state, saying why.
func (c *change) setKeyState(key *models.APIKey, state models.KeyState, reason string) error {
	return c.tx.SetKeyState(key, state, reason, c.now)
}

// record writes the event of this change; key may be nil.
func (c *change) record(action models.KeyAction, key *models.APIKey, actor, reason string) error {
	event := models.KeyEvent{
		DeveloperID:   c.developer.ID,
		DiscordUserID: c.developer.DiscordUserID,
		Action:        action,
		Actor:         actor,
		Reason:        reason,
		CreatedAt:     c.now,
	}
	if key != nil {
		id := key.ID
		event.KeyID = &id
	}
	if err := c.tx.CreateKeyEvent(&event); err != nil {
		return err
	}
	c.events = append(c.events, event)
	return nil
}
