package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"
)

// partitionLockID is the PostgreSQL advisory lock taken while snapshot
// partitions are created or dropped, so replicas do not race on the
// catalog.
const partitionLockID = 0x63726f776e7370 // "crownsp"

// partitionPrefix names the monthly partitions of clan_snapshots:
// clan_snapshots_p202601 holds the slots of January 2026 (UTC).
const partitionPrefix = "clan_snapshots_p"

// partitionCache remembers the partitions this process created or saw, so
// a snapshot write checks its month without a query.
type partitionCache struct {
	mu    sync.Mutex
	known map[string]bool
}

func newPartitionCache() *partitionCache {
	return &partitionCache{known: make(map[string]bool)}
}

func (p *partitionCache) has(name string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.known[name]
}

func (p *partitionCache) set(name string, exists bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if exists {
		p.known[name] = true
	} else {
		delete(p.known, name)
	}
}

// monthOf returns the first instant of t's month in UTC.
func monthOf(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

func partitionName(month time.Time) string {
	return fmt.Sprintf("%s%04d%02d", partitionPrefix, month.Year(), int(month.Month()))
}

// partitionMonth parses a partition name back to its month.
func partitionMonth(name string) (time.Time, bool) {
	digits, ok := strings.CutPrefix(name, partitionPrefix)
	if !ok || len(digits) != 6 {
		return time.Time{}, false
	}
	month, err := time.Parse("200601", digits)
	if err != nil {
		return time.Time{}, false
	}
	return month.UTC(), true
}

// EnsureSnapshotPartitions makes sure the monthly partitions of every
// month from from's to to's exist (PostgreSQL; nothing to do on SQLite).
// The scheduler calls it ahead of time for this month and the next;
// snapshot writes call it for their own month, which costs no query once
// the month is known.
func (s *Store) EnsureSnapshotPartitions(ctx context.Context, from, to time.Time) error {
	if s.Dialect() != DialectPostgres {
		return nil
	}
	for month := monthOf(from); !month.After(to); month = month.AddDate(0, 1, 0) {
		if err := s.ensurePartition(ctx, month); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) ensurePartition(ctx context.Context, month time.Time) error {
	name := partitionName(month)
	if s.partitions.has(name) {
		return nil
	}
	// The partition is made as a table of its own and then attached:
	// CREATE TABLE ... PARTITION OF would hold clan_snapshots exclusively
	// while it waits to add the foreign key to tracked_clans, and a writer
	// that holds tracked_clans and waits for clan_snapshots (a track
	// request storing its first snapshot) would close a deadlock. ATTACH
	// takes clan_snapshots in a mode writers pass through, so they never
	// wait for it.
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(?)`, partitionLockID).Error; err != nil {
			return err
		}
		var exists bool
		if err := tx.Raw(`SELECT to_regclass(?) IS NOT NULL`, name).Scan(&exists).Error; err != nil || exists {
			return err
		}
		if err := tx.Exec(fmt.Sprintf(`CREATE TABLE %s (LIKE clan_snapshots INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE)`, name)).Error; err != nil {
			return err
		}
		return tx.Exec(fmt.Sprintf(`ALTER TABLE clan_snapshots ATTACH PARTITION %s FOR VALUES FROM (%d) TO (%d)`,
			name, month.Unix(), month.AddDate(0, 1, 0).Unix())).Error
	})
	if err != nil {
		return fmt.Errorf("create snapshot partition %s: %w", name, err)
	}
	s.partitions.set(name, true)
	return nil
}

// SnapshotPartitions lists the monthly partitions of clan_snapshots in
// ascending order (PostgreSQL; nil on SQLite).
func (s *Store) SnapshotPartitions(ctx context.Context) ([]string, error) {
	if s.Dialect() != DialectPostgres {
		return nil, nil
	}
	return s.listPartitions(s.session(ctx))
}

func (s *Store) listPartitions(db *gorm.DB) ([]string, error) {
	var names []string
	err := db.Raw(`SELECT child.relname FROM pg_inherits i
		JOIN pg_class child ON child.oid = i.inhrelid
		WHERE i.inhparent = 'clan_snapshots'::regclass`).Scan(&names).Error
	if err != nil {
		return nil, fmt.Errorf("list snapshot partitions: %w", s.Translate(err))
	}
	sort.Strings(names)
	return names, nil
}

// dropPartitionsBefore drops the monthly partitions whose every slot is
// before cutoff and returns their names. Dropping a partition is
// immediate and leaves no dead rows to vacuum.
func (s *Store) dropPartitionsBefore(ctx context.Context, cutoff time.Time) ([]string, error) {
	var dropped []string
	err := s.inTx(ctx, func(tx *gorm.DB) error {
		if err := tx.Exec(`SELECT pg_advisory_xact_lock(?)`, partitionLockID).Error; err != nil {
			return err
		}
		names, err := s.listPartitions(tx)
		if err != nil {
			return err
		}
		for _, name := range names {
			month, ok := partitionMonth(name)
			if !ok || month.AddDate(0, 1, 0).After(cutoff) {
				continue
			}
			if err := tx.Exec(`DROP TABLE ` + name).Error; err != nil {
				return fmt.Errorf("drop snapshot partition %s: %w", name, err)
			}
			dropped = append(dropped, name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, name := range dropped {
		s.partitions.set(name, false)
	}
	return dropped, nil
}
