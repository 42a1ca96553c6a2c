package models

import (
	"context"
	"time"
)

// DeveloperState summarises where a developer stands, for the bot and the
// command line.
type DeveloperState string

// The developer states, derived from the blacklist flag and the current
// key.
const (
	// DeveloperActive: the current key authenticates.
	DeveloperActive DeveloperState = "active"
	// DeveloperDisabled: the current key is disabled (the developer left
	// the community server).
	DeveloperDisabled DeveloperState = "disabled"
	// DeveloperBlacklisted: the developer may not hold a key.
	DeveloperBlacklisted DeveloperState = "blacklisted"
	// DeveloperWithoutKey: no current key (never issued, or revoked).
	DeveloperWithoutKey DeveloperState = "no key"
)

// DeveloperInfo is what may be shown about a developer: never a key, not
// even its digest.
type DeveloperInfo struct {
	DeveloperID   int64
	DiscordUserID string
	DisplayName   string
	State         DeveloperState
	// CreatedAt is when the developer was first recorded.
	CreatedAt time.Time
	// CurrentKeyID and KeyCreatedAt describe the current (active or
	// disabled) key; zero and nil when there is none.
	CurrentKeyID int64
	KeyCreatedAt *time.Time
	// LastUsedAt is the latest use of any of the developer's keys, as of
	// the last flush of usage; nil when never used.
	LastUsedAt      *time.Time
	BlacklistReason string
	BlacklistedBy   string
	BlacklistedAt   *time.Time
	// KeyCounts counts the developer's keys by state; states without keys
	// are absent.
	KeyCounts map[KeyState]int
}

// DeveloperInfo describes the developer with this Discord user id, or
// returns ErrNotFound.
func (s *Store) DeveloperInfo(ctx context.Context, discordUserID string) (DeveloperInfo, error) {
	var developer Developer
	if err := s.DB(ctx).Where("discord_user_id = ?", discordUserID).Take(&developer).Error; err != nil {
		return DeveloperInfo{}, s.translate(err)
	}
	infos, err := s.describe(ctx, []Developer{developer})
	if err != nil {
		return DeveloperInfo{}, err
	}
	return infos[0], nil
}

// DeveloperInfos describes every developer, in numeric order of Discord
// user id.
func (s *Store) DeveloperInfos(ctx context.Context) ([]DeveloperInfo, error) {
	var developers []Developer
	if err := s.DB(ctx).Order("LENGTH(discord_user_id), discord_user_id").Find(&developers).Error; err != nil {
		return nil, s.translate(err)
	}
	return s.describe(ctx, developers)
}

// describe joins developers with the bookkeeping columns of their keys
// (never digest or ciphertext) and summarises them.
func (s *Store) describe(ctx context.Context, developers []Developer) ([]DeveloperInfo, error) {
	if len(developers) == 0 {
		return nil, nil
	}
	query := s.DB(ctx).Select("id", "developer_id", "state", "created_at", "last_used_at").Order("id")
	if len(developers) == 1 {
		query = query.Where("developer_id = ?", developers[0].ID)
	}
	var keys []APIKey
	if err := query.Find(&keys).Error; err != nil {
		return nil, s.translate(err)
	}
	byDeveloper := make(map[int64][]APIKey, len(developers))
	for _, key := range keys {
		byDeveloper[key.DeveloperID] = append(byDeveloper[key.DeveloperID], key)
	}
	infos := make([]DeveloperInfo, len(developers))
	for i, developer := range developers {
		infos[i] = summarise(developer, byDeveloper[developer.ID])
	}
	return infos, nil
}

func summarise(developer Developer, keys []APIKey) DeveloperInfo {
	info := DeveloperInfo{
		DeveloperID:     developer.ID,
		DiscordUserID:   developer.DiscordUserID,
		DisplayName:     developer.DisplayName,
		State:           DeveloperWithoutKey,
		CreatedAt:       developer.CreatedAt,
		BlacklistReason: developer.BlacklistReason,
		BlacklistedBy:   developer.BlacklistedBy,
		BlacklistedAt:   developer.BlacklistedAt,
		KeyCounts:       make(map[KeyState]int),
	}
	for _, key := range keys {
		info.KeyCounts[key.State]++
		if key.State.Current() {
			info.CurrentKeyID = key.ID
			created := key.CreatedAt
			info.KeyCreatedAt = &created
			info.State = DeveloperActive
			if key.State == KeyDisabled {
				info.State = DeveloperDisabled
			}
		}
		if key.LastUsedAt != nil && (info.LastUsedAt == nil || key.LastUsedAt.After(*info.LastUsedAt)) {
			used := *key.LastUsedAt
			info.LastUsedAt = &used
		}
	}
	if developer.Blacklisted {
		info.State = DeveloperBlacklisted
	}
	return info
}

// DevelopersWithActiveKeys returns the Discord user ids of developers
// whose current key is active, in numeric order: what the bot reconciles
// against the members of the community server.
func (s *Store) DevelopersWithActiveKeys(ctx context.Context) ([]string, error) {
	var ids []string
	err := s.DB(ctx).Model(&Developer{}).
		Joins("JOIN api_keys ON api_keys.developer_id = developers.id").
		Where("api_keys.state = ?", KeyActive).
		Order("LENGTH(developers.discord_user_id), developers.discord_user_id").
		Pluck("developers.discord_user_id", &ids).Error
	return ids, s.translate(err)
}
