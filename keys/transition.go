package keys

import (
	"context"
	"errors"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"gorm.io/gorm"

	"github.com/crownsdev/crowns/models"
)

// transitionLockID is the PostgreSQL transaction-scoped advisory lock
// every key transition takes. Transitions are rare (people ask for keys,
// moderators act), so serialising them costs nothing and gives two
// guarantees: concurrent requests of one developer see each other's
// result, and key_events ids become visible in commit order. SQLite
// transactions are already serialised (BEGIN IMMEDIATE).
const transitionLockID = 0x63726f776e6b // "crownk"

// maxTransitionAttempts bounds the retries of a transition that hit a
// unique violation (a racing writer outside the lock, a digest collision).
const maxTransitionAttempts = 3

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
	tx        *gorm.DB
	now       time.Time
	developer models.Developer
	events    []models.KeyEvent
}

// transition runs apply in one transaction with the developer's row
// loaded, retrying on a unique violation. After the commit it drops the
// developer's keys from the verification cache, so this process answers
// from the new state on its very next request, and announces the events.
func (s *Service) transition(ctx context.Context, who subject, apply func(*change) error) error {
	var (
		done    *change
		digests [][]byte
		err     error
	)
	for attempt := 1; ; attempt++ {
		done, digests, err = s.attempt(ctx, who, apply)
		if err == nil || !store.IsUniqueViolation(err) || attempt == maxTransitionAttempts {
			break
		}
	}
	if err != nil {
		return s.db.Translate(err)
	}
	s.cache.forget(digests)
	s.feed.committed(done.events)
	s.announce(done.events)
	return nil
}

// attempt is one try of a transition; it returns the digests of all the
// developer's keys, whose cached verdicts the change may have outdated.
func (s *Service) attempt(ctx context.Context, who subject, apply func(*change) error) (*change, [][]byte, error) {
	c := &change{ring: s.ring, now: s.clock.Now()}
	var digests [][]byte
	err := s.db.DB(ctx).Transaction(func(tx *gorm.DB) error {
		c.tx = tx
		if s.db.Dialect() == store.DialectPostgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", transitionLockID).Error; err != nil {
				return err
			}
		}
		if err := c.loadDeveloper(who); err != nil {
			return err
		}
		if err := apply(c); err != nil {
			return err
		}
		return tx.Model(&models.APIKey{}).Where("developer_id = ?", c.developer.ID).Pluck("digest", &digests).Error
	})
	return c, digests, err
}

// loadDeveloper reads (or records) the developer and keeps its display
// name current.
func (c *change) loadDeveloper(who subject) error {
	err := c.tx.Where("discord_user_id = ?", who.discordUserID).Take(&c.developer).Error
	if errors.Is(err, gorm.ErrRecordNotFound) && who.createIfMissing {
		c.developer = models.Developer{
			DiscordUserID: who.discordUserID,
			DisplayName:   who.displayName,
			CreatedAt:     c.now,
			UpdatedAt:     c.now,
		}
		return c.tx.Create(&c.developer).Error
	}
	if err != nil {
		return err
	}
	if who.displayName != "" && who.displayName != c.developer.DisplayName {
		return c.updateDeveloper(map[string]any{"display_name": who.displayName})
	}
	return nil
}

// updateDeveloper writes columns of the developer's row, and its
// updated_at.
func (c *change) updateDeveloper(columns map[string]any) error {
	columns["updated_at"] = c.now
	return c.tx.Model(&c.developer).Updates(columns).Error
}

// currentKey returns the developer's active or disabled key, or nil.
func (c *change) currentKey() (*models.APIKey, error) {
	var key models.APIKey
	err := c.tx.Where("developer_id = ? AND state IN ?", c.developer.ID, []models.KeyState{models.KeyActive, models.KeyDisabled}).
		Take(&key).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &key, nil
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
	if err := c.tx.Create(key).Error; err != nil {
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
	err := c.tx.Model(key).Updates(map[string]any{
		"state": state, "state_reason": reason, "state_changed_at": c.now,
	}).Error
	if err != nil {
		return err
	}
	key.State, key.StateReason, key.StateChangedAt = state, reason, c.now
	return nil
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
	if err := c.tx.Create(&event).Error; err != nil {
		return err
	}
	c.events = append(c.events, event)
	return nil
}
