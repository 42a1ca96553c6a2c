package store

import (
	"context"

	"github.com/crownsdev/crowns/models"
)

// KeyStandingByDigest returns the standing of the key with this lookup
// digest; found is false when there is none.
func (s *Store) KeyStandingByDigest(ctx context.Context, digest []byte) (standing models.KeyStanding, found bool, err error) {
	var rows []models.KeyStanding
	err = s.session(ctx).Raw(`SELECT api_keys.id AS key_id, api_keys.developer_id, api_keys.state,
			developers.discord_user_id, developers.blacklisted AS developer_blacklisted
		FROM api_keys JOIN developers ON developers.id = api_keys.developer_id
		WHERE api_keys.digest = ?`, digest).Scan(&rows).Error
	if err != nil || len(rows) == 0 {
		return models.KeyStanding{}, false, s.translate(err)
	}
	return rows[0], true, nil
}
