package store

import (
	"context"

	"github.com/crownsdev/crowns/models"
)

// DeveloperInfo describes the developer with this Discord user id, or
// returns ErrNotFound.
func (s *Store) DeveloperInfo(ctx context.Context, discordUserID string) (models.DeveloperInfo, error) {
	var developer models.Developer
	if err := s.session(ctx).Where("discord_user_id = ?", discordUserID).Take(&developer).Error; err != nil {
		return models.DeveloperInfo{}, s.translate(err)
	}
	infos, err := s.describe(ctx, []models.Developer{developer})
	if err != nil {
		return models.DeveloperInfo{}, err
	}
	return infos[0], nil
}

// DeveloperInfos describes every developer, in numeric order of Discord
// user id.
func (s *Store) DeveloperInfos(ctx context.Context) ([]models.DeveloperInfo, error) {
	var developers []models.Developer
	if err := s.session(ctx).Order("LENGTH(discord_user_id), discord_user_id").Find(&developers).Error; err != nil {
		return nil, s.translate(err)
	}
	return s.describe(ctx, developers)
}

// describe joins developers with the bookkeeping columns of their keys
// (never digest or ciphertext) and summarises them.
func (s *Store) describe(ctx context.Context, developers []models.Developer) ([]models.DeveloperInfo, error) {
	if len(developers) == 0 {
		return nil, nil
	}
	query := s.session(ctx).Select("id", "developer_id", "state", "created_at", "last_used_at").Order("id")
	if len(developers) == 1 {
		query = query.Where("developer_id = ?", developers[0].ID)
	}
	var keys []models.APIKey
	if err := query.Find(&keys).Error; err != nil {
		return nil, s.translate(err)
	}
	byDeveloper := make(map[int64][]models.APIKey, len(developers))
	for _, key := range keys {
		byDeveloper[key.DeveloperID] = append(byDeveloper[key.DeveloperID], key)
	}
	infos := make([]models.DeveloperInfo, len(developers))
	for i, developer := range developers {
		infos[i] = summarise(developer, byDeveloper[developer.ID])
	}
	return infos, nil
}

func summarise(developer models.Developer, keys []models.APIKey) models.DeveloperInfo {
	info := models.DeveloperInfo{
		DeveloperID:     developer.ID,
		DiscordUserID:   developer.DiscordUserID,
		DisplayName:     developer.DisplayName,
		State:           models.DeveloperWithoutKey,
		CreatedAt:       developer.CreatedAt,
		BlacklistReason: developer.BlacklistReason,
		BlacklistedBy:   developer.BlacklistedBy,
		BlacklistedAt:   developer.BlacklistedAt,
		KeyCounts:       make(map[models.KeyState]int),
	}
	for _, key := range keys { // by id: the newest last
		info.KeyCounts[key.State]++
		info.LatestKeyID = key.ID
		if key.State.Current() {
			info.CurrentKeyID = key.ID
			created := key.CreatedAt
			info.KeyCreatedAt = &created
			info.State = models.DeveloperActive
			if key.State == models.KeyDisabled {
				info.State = models.DeveloperDisabled
			}
		}
		if key.LastUsedAt != nil && (info.LastUsedAt == nil || key.LastUsedAt.After(*info.LastUsedAt)) {
			used := *key.LastUsedAt
			info.LastUsedAt = &used
		}
	}
	if developer.Blacklisted {
		info.State = models.DeveloperBlacklisted
	}
	return info
}

// DevelopersWithActiveKeys returns the Discord user ids of developers
// whose current key is active, in numeric order: what the bot reconciles
// against the members of the community server.
func (s *Store) DevelopersWithActiveKeys(ctx context.Context) ([]string, error) {
	var ids []string
	err := s.session(ctx).Model(&models.Developer{}).
		Joins("JOIN api_keys ON api_keys.developer_id = developers.id").
		Where("api_keys.state = ?", models.KeyActive).
		Order("LENGTH(developers.discord_user_id), developers.discord_user_id").
		Pluck("developers.discord_user_id", &ids).Error
	return ids, s.translate(err)
}
