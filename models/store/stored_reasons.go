package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/crownsdev/crowns/models"
)

// reasonTable is where a reason column is: its table and column.
func reasonTable(column models.ReasonColumn) (table, name string, err error) {
	switch column {
	case models.ReasonOfKeyEvent:
		return "key_events", "reason", nil
	case models.ReasonOfKeyState:
		return "api_keys", "state_reason", nil
	case models.ReasonOfBlacklisting:
		return "developers", "blacklist_reason", nil
	}
	return "", "", fmt.Errorf("unknown reason column %q", column)
}

// StoredReasonsContaining returns every stored reason (of every column in
// models.ReasonColumns) whose text holds text, by column and id. The
// database is asked for the rows whose reason is LIKE it, wildcards
// escaped; SQLite's LIKE ignores the case of ASCII letters, so what it
// answers is checked again here.
func (s *Store) StoredReasonsContaining(ctx context.Context, text string) ([]models.StoredReason, error) {
	pattern := "%" + likeEscaper().Replace(text) + "%"
	var found []models.StoredReason
	for _, column := range models.ReasonColumns() {
		table, name, err := reasonTable(column)
		if err != nil {
			return nil, err
		}
		var rows []struct {
			ID   int64
			Text string
		}
		err = s.session(ctx).Raw(`SELECT id, `+name+` AS text FROM `+table+` WHERE `+name+` LIKE ? ESCAPE '\' ORDER BY id`, pattern).
			Scan(&rows).Error
		if err != nil {
			return nil, fmt.Errorf("read the %s reasons: %w", column, s.translate(err))
		}
		for _, row := range rows {
			if strings.Contains(row.Text, text) {
				found = append(found, models.StoredReason{Column: column, ID: row.ID, Text: row.Text})
			}
		}
	}
	return found, nil
}

// likeEscaper escapes LIKE's wildcards, and its escape character, with
// a backslash.
func likeEscaper() *strings.Replacer {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
}

// RewriteStoredReason replaces the text of the stored reason with text,
// only while it still holds reason.Text, and touches nothing else of its
// row. It reports whether it did: false when the row is gone or its
// reason has changed since it was read (another process rewrote it
// first), so that processes rewriting together change each reason once.
func (s *Store) RewriteStoredReason(ctx context.Context, reason models.StoredReason, text string) (bool, error) {
	table, name, err := reasonTable(reason.Column)
	if err != nil {
		return false, err
	}
	result := s.session(ctx).Exec(`UPDATE `+table+` SET `+name+` = ? WHERE id = ? AND `+name+` = ?`, text, reason.ID, reason.Text)
	if result.Error != nil {
		return false, fmt.Errorf("rewrite the %s reason %d: %w", reason.Column, reason.ID, s.translate(result.Error))
	}
	return result.RowsAffected == 1, nil
}
