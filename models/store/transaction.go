package store

import (
	"context"

	"gorm.io/gorm"
)

// forUpdate is the row-locking suffix of a SELECT inside a transaction:
// FOR UPDATE on PostgreSQL; nothing on SQLite, whose immediate
// transactions already hold the single writer lock.
func (s *Store) forUpdate() string {
	if s.Dialect() == DialectPostgres {
		return " FOR UPDATE"
	}
	return ""
}

// inTx runs fn in one transaction and translates its error.
func (s *Store) inTx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return s.Translate(s.session(ctx).Transaction(fn))
}
