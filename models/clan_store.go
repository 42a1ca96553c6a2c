package models

import (
	"context"

	"gorm.io/gorm"
)

// ClanStore is the storage of clan tracking and clan history: tracked
// clans, the player dictionary, snapshots, snapshot jobs and their
// retention. It wraps a Store and keeps two in-process caches: the
// immutable player dictionary rows (so a history read costs one query in
// steady state) and, on PostgreSQL, the monthly snapshot partitions known
// to exist. One ClanStore per process is enough; it is safe for concurrent
// use.
type ClanStore struct {
	store      *Store
	players    *playerCache
	partitions *partitionCache
}

// NewClanStore returns the clan storage over store.
func NewClanStore(store *Store) *ClanStore {
	return &ClanStore{
		store:      store,
		players:    newPlayerCache(defaultPlayerCacheSize),
		partitions: newPartitionCache(),
	}
}

// Dialect tells which engine the store runs on.
func (c *ClanStore) Dialect() Dialect { return c.store.Dialect() }

// forUpdate is the row-locking suffix of a SELECT inside a transaction:
// FOR UPDATE on PostgreSQL; nothing on SQLite, whose immediate
// transactions already hold the single writer lock.
func (c *ClanStore) forUpdate() string {
	if c.store.Dialect() == DialectPostgres {
		return " FOR UPDATE"
	}
	return ""
}

// inTx runs fn in one transaction and translates its error.
func (c *ClanStore) inTx(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return c.store.Translate(c.store.DB(ctx).Transaction(fn))
}
