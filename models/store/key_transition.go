package store

import (
	"context"
	"errors"
	"time"

	"github.com/crownsdev/crowns/models"

	"gorm.io/gorm"
)

// keyTransitionLockID is the PostgreSQL transaction-scoped advisory lock
// every key transition takes. Transitions are rare (people ask for keys,
// moderators act), so serialising them costs nothing and gives two
// guarantees: concurrent requests of one developer see each other's
// result, and key_events ids become visible in commit order. SQLite
// transactions are already serialised (BEGIN IMMEDIATE).
const keyTransitionLockID = 0x63726f776e6b // "crownk"

// maxKeyTransitionAttempts bounds the tries of a key transition that hit a
// unique violation (a racing writer outside the lock, a digest collision).
const maxKeyTransitionAttempts = 3

// keyTx is one key transition's transaction (models.KeyTransaction): the
// reads and writes of developer, key and key-event rows it may make. It
// is valid only inside the function given to KeyTransition.
type keyTx struct {
	tx *gorm.DB
}

// KeyTransition runs fn in one transaction serialised with every other key
// transition, and tries fn again (up to three tries in all) when the
// transaction hits a unique violation: fn must start afresh on each call.
// Driver errors are translated (a missing row is models.ErrNotFound).
func (s *Store) KeyTransition(ctx context.Context, fn func(tx models.KeyTransaction) error) error {
	var err error
	for attempt := 1; ; attempt++ {
		err = s.session(ctx).Transaction(func(tx *gorm.DB) error {
			if s.dialect == DialectPostgres {
				if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", keyTransitionLockID).Error; err != nil {
					return err
				}
			}
			return fn(&keyTx{tx: tx})
		})
		if err == nil || !IsUniqueViolation(err) || attempt == maxKeyTransitionAttempts {
			return s.translate(err)
		}
	}
}

// Developer reads the developer with this Discord user id
// (models.ErrNotFound when there is none).
func (k *keyTx) Developer(discordUserID string) (models.Developer, error) {
	var developer models.Developer
	err := k.tx.Where("discord_user_id = ?", discordUserID).Take(&developer).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return developer, models.ErrNotFound
	}
	return developer, err
}

// CreateDeveloper records a new developer and sets its ID.
func (k *keyTx) CreateDeveloper(developer *models.Developer) error {
	return k.tx.Create(developer).Error
}

// UpdateDeveloper writes what may change of a developer's row: its
// display name, blacklisting and update time (zero values included).
func (k *keyTx) UpdateDeveloper(developer *models.Developer) error {
	return k.tx.Model(developer).
		Select("DisplayName", "Blacklisted", "BlacklistReason", "BlacklistedBy", "BlacklistedAt", "UpdatedAt").
		Updates(developer).Error
}

// CurrentKey returns the developer's active or disabled key, or nil.
func (k *keyTx) CurrentKey(developerID int64) (*models.APIKey, error) {
	var key models.APIKey
	err := k.tx.Where("developer_id = ? AND state IN ?", developerID, []models.KeyState{models.KeyActive, models.KeyDisabled}).
		Take(&key).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &key, nil
}

// KeyByDigest returns the key with this lookup digest, or nil.
func (k *keyTx) KeyByDigest(digest []byte) (*models.APIKey, error) {
	var key models.APIKey
	err := k.tx.Where("digest = ?", digest).Take(&key).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &key, nil
}

// CreateKey stores a new key and sets its ID.
func (k *keyTx) CreateKey(key *models.APIKey) error {
	return k.tx.Create(key).Error
}

// SetKeyState moves key to state at `at`, saying why, in the database and
// in key.
func (k *keyTx) SetKeyState(key *models.APIKey, state models.KeyState, reason string, at time.Time) error {
	err := k.tx.Model(key).Updates(map[string]any{
		"state": state, "state_reason": reason, "state_changed_at": at,
	}).Error
	if err != nil {
		return err
	}
	key.State, key.StateReason, key.StateChangedAt = state, reason, at
	return nil
}

// CreateKeyEvent records event and sets its ID.
func (k *keyTx) CreateKeyEvent(event *models.KeyEvent) error {
	return k.tx.Create(event).Error
}

// KeyDigests returns the lookup digests of every key of the developer, in
// any state.
func (k *keyTx) KeyDigests(developerID int64) ([][]byte, error) {
	var digests [][]byte
	err := k.tx.Model(&models.APIKey{}).Where("developer_id = ?", developerID).Pluck("digest", &digests).Error
	return digests, err
}
