package models

import "time"

// Developer is a row of developers: a Discord user who has asked for a
// key or has been blacklisted. Times are set from the injected clock, never
// by GORM.
type Developer struct {
	ID int64 `gorm:"primaryKey"`
	// DiscordUserID is the Discord snowflake, as decimal digits.
	DiscordUserID string `gorm:"not null"`
	// DisplayName is the name the developer had when last seen.
	DisplayName string `gorm:"not null"`
	// Blacklisted forbids new keys; BlacklistReason, BlacklistedBy and
	// BlacklistedAt say why, who and when.
	Blacklisted     bool   `gorm:"not null"`
	BlacklistReason string `gorm:"not null"`
	BlacklistedBy   string `gorm:"not null"`
	BlacklistedAt   *time.Time
	CreatedAt       time.Time `gorm:"autoCreateTime:false"`
	UpdatedAt       time.Time `gorm:"autoUpdateTime:false"`
}

// TableName names the developers table.
func (Developer) TableName() string { return "developers" }
