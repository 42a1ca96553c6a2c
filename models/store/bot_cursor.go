package store

import (
	"context"
	"errors"
	"time"

	"github.com/crownsdev/crowns/models"

	"gorm.io/gorm/clause"
)

// BotCursorPosition returns the position saved under name, or 0 when none
// was saved yet.
func (s *Store) BotCursorPosition(ctx context.Context, name string) (int64, error) {
	var cursor models.BotCursor
	err := s.session(ctx).Where("name = ?", name).Take(&cursor).Error
	switch err = s.translate(err); {
	case errors.Is(err, models.ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, err
	}
	return cursor.Position, nil
}

// SaveBotCursorPosition stores position under name at time at, replacing
// the previous position.
func (s *Store) SaveBotCursorPosition(ctx context.Context, name string, position int64, at time.Time) error {
	cursor := models.BotCursor{Name: name, Position: position, UpdatedAt: at.UTC()}
	err := s.session(ctx).Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "name"}},
		DoUpdates: clause.AssignmentColumns([]string{"position", "updated_at"}),
	}).Create(&cursor).Error
	return s.translate(err)
}
