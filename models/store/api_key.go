package store

import (
	"context"
	"slices"

	"github.com/crownsdev/crowns/models"
)

// keyDigestsPerStatement bounds the developer ids of one query.
const keyDigestsPerStatement = 500

// KeyDigestsOfDevelopers returns the lookup digests of every key (in any
// state) of these developers.
func (s *Store) KeyDigestsOfDevelopers(ctx context.Context, developerIDs []int64) ([][]byte, error) {
	var digests [][]byte
	for batch := range slices.Chunk(developerIDs, keyDigestsPerStatement) {
		var some [][]byte
		if err := s.session(ctx).Model(&models.APIKey{}).Where("developer_id IN ?", batch).Pluck("digest", &some).Error; err != nil {
			return nil, s.translate(err)
		}
		digests = append(digests, some...)
	}
	return digests, nil
}
