package keys

import (
	"context"

	"github.com/crownsdev/crowns/models"
)

// DeveloperInfo is what may be shown about a developer: state, names,
// times, blacklist details and key counts, never a key.
type DeveloperInfo = models.DeveloperInfo

// Info describes the developer with this Discord user id; an unknown one
// is models.ErrNotFound. Last use is as of the latest Flush of the
// process that verified the key.
func (s *Service) Info(ctx context.Context, discordUserID string) (DeveloperInfo, error) {
	if err := CheckStoredDiscordUserID(discordUserID); err != nil {
		return DeveloperInfo{}, err
	}
	return s.db.DeveloperInfo(ctx, discordUserID)
}

// List describes every developer, in numeric order of Discord user id.
func (s *Service) List(ctx context.Context) ([]DeveloperInfo, error) {
	return s.db.DeveloperInfos(ctx)
}

// DevelopersWithActiveKeys returns the Discord user ids whose key is
// active: the bot disables those who are no longer members.
func (s *Service) DevelopersWithActiveKeys(ctx context.Context) ([]string, error) {
	return s.db.DevelopersWithActiveKeys(ctx)
}
