package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm/clause"
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

// BotCursorPosition returns the position saved under name, or 0 when none
// was saved yet.
func (s *Store) BotCursorPosition(ctx context.Context, name string) (int64, error) {
	var cursor BotCursor
	err := s.DB(ctx).Where("name = ?", name).Take(&cursor).Error
	switch err = s.translate(err); {
	case errors.Is(err, ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, err
	}
	return cursor.Position, nil
}

// SaveBotCursorPosition stores position under name at time at, replacing
// the previous position.
func (s *Store) SaveBotCursorPosition(ctx context.Context, name string, position int64, at time.Time) error {
	cursor := BotCursor{Name: name, Position: position, UpdatedAt: at.UTC()}
	err := s.DB(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "name"}},
		DoUpdates: clause.AssignmentColumns([]string{"position", "updated_at"}),
	}).Create(&cursor).Error
	return s.translate(err)
}
