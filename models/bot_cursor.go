package models

import (
	"time"
)

// BotCursor is a row of bot_cursors: how far a named reader has handled an
// outbox, such as the bot's audit posts of key_events.
type BotCursor struct {
	Name string `gorm:"primaryKey"`
	// Position is the id of the last handled outbox row.
	Position  int64     `gorm:"not null"`
	UpdatedAt time.Time `gorm:"autoUpdateTime:false"`
}

// TableName names the bot_cursors table.
func (BotCursor) TableName() string { return "bot_cursors" }
