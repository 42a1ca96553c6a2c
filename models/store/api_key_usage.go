package store

import (
	"context"
	"slices"
	"strings"
	"time"
)

// keyUsesPerStatement bounds one batched update (SQLite allows at most
// 500 terms in a compound SELECT).
const keyUsesPerStatement = 200

// MarkKeysUsed stores the latest use of each key (key id → time) in one
// statement per keyUsesPerStatement keys. A stored time never moves
// backwards, so replicas flushing in any order agree on the latest use.
func (s *Store) MarkKeysUsed(ctx context.Context, uses map[int64]time.Time) error {
	ids := make([]int64, 0, len(uses))
	for id := range uses {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for batch := range slices.Chunk(ids, keyUsesPerStatement) {
		stmt, args := s.markKeysUsedStatement(batch, uses)
		if err := s.session(ctx).Exec(stmt, args...).Error; err != nil {
			return s.translate(err)
		}
	}
	return nil
}

// markKeysUsedStatement builds
//
//	UPDATE api_keys SET last_used_at = used.at
//	FROM (SELECT ? AS id, ? AS at UNION ALL SELECT ?, ? ...) AS used
//	WHERE api_keys.id = used.id AND (last_used_at IS NULL OR last_used_at < used.at)
//
// with the first row's parameters cast on PostgreSQL, which cannot infer
// their types. SQLite compares the UTC timestamps as text, which orders
// them correctly in the driver's fixed format.
func (s *Store) markKeysUsedStatement(ids []int64, uses map[int64]time.Time) (string, []any) {
	first := "SELECT ? AS id, ? AS at"
	if s.dialect == DialectPostgres {
		first = "SELECT CAST(? AS BIGINT) AS id, CAST(? AS TIMESTAMPTZ) AS at"
	}
	var rows strings.Builder
	args := make([]any, 0, 2*len(ids))
	for i, id := range ids {
		if i == 0 {
			rows.WriteString(first)
		} else {
			rows.WriteString(" UNION ALL SELECT ?, ?")
		}
		args = append(args, id, uses[id].UTC())
	}
	stmt := "UPDATE api_keys SET last_used_at = used.at FROM (" + rows.String() + ") AS used" +
		" WHERE api_keys.id = used.id AND (api_keys.last_used_at IS NULL OR api_keys.last_used_at < used.at)"
	return stmt, args
}
