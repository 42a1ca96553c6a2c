package store

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/internal/outage"
	"github.com/crownsdev/crowns/models"
)

// ClanChangePollInterval is how often each process reads the clan_changes
// outbox on SQLite: a change committed by another process is announced
// here within about this long.
const ClanChangePollInterval = time.Second

// clanChangeRetention is how long outbox rows are kept: far longer than
// any process takes to read them.
const clanChangeRetention = 10 * time.Minute

// clanChangePruneEvery is how many polls pass between two prunings.
const clanChangePruneEvery = 60

// clanChangeBatch bounds the rows one read of the outbox takes.
const clanChangeBatch = 500

// outboxRow is one row of clan_changes.
type outboxRow struct {
	ID     int64
	Origin string
	Tag    string
}

// followClanChanges announces the changes other processes record in the
// clan_changes outbox (SQLite), reading it at each tick from the last row
// seen, until ctx ends. It starts at the end of the outbox and announces
// a change of all clans then (what came before is unknown). A failed read
// is tried again at the next tick, and logged as package outage does;
// nothing is lost meanwhile, as the rows stay.
func (s *Store) followClanChanges(ctx context.Context, tick <-chan time.Time) error {
	ctx = models.AsBackground(ctx)
	unread := outage.New(outage.Config{
		Logger:    s.log,
		Now:       s.clock.Now,
		Failing:   "cannot read the clan change outbox; trying again",
		Recovered: "reading the clan change outbox again",
	})
	cursor, started := int64(0), false
	for polls := 0; ; polls++ {
		var err error
		if !started {
			var last int64
			if last, err = s.lastClanChange(ctx); err == nil {
				cursor, started = last, true
				s.changes.announce(models.ClanChange{All: true})
			}
		} else {
			var next int64
			if next, err = s.announceOutbox(ctx, cursor); err == nil {
				cursor = next
			}
		}
		unread.Outcome(ctx, err)
		if polls%clanChangePruneEvery == clanChangePruneEvery-1 {
			s.pruneClanChanges(ctx)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick:
		}
	}
}

// lastClanChange is the id of the newest outbox row (0 when empty).
func (s *Store) lastClanChange(ctx context.Context) (int64, error) {
	var last int64
	err := s.session(ctx).Raw(`SELECT COALESCE(MAX(id), 0) FROM clan_changes`).Scan(&last).Error
	return last, s.translate(err)
}

// announceOutbox announces the rows after cursor that other processes
// wrote, and returns the id of the last row read.
func (s *Store) announceOutbox(ctx context.Context, cursor int64) (int64, error) {
	for {
		var rows []outboxRow
		err := s.session(ctx).Raw(`SELECT id, origin, tag FROM clan_changes WHERE id > ? ORDER BY id LIMIT ?`,
			cursor, clanChangeBatch).Scan(&rows).Error
		if err != nil {
			return cursor, fmt.Errorf("read clan changes: %w", s.translate(err))
		}
		for _, row := range rows {
			if row.Origin != s.changes.origin {
				s.changes.announce(models.ClanChange{Tag: row.Tag})
			}
			cursor = row.ID
		}
		if len(rows) < clanChangeBatch {
			return cursor, nil
		}
	}
}

// pruneClanChanges deletes outbox rows older than clanChangeRetention;
// every process does it now and then, harmlessly at once.
func (s *Store) pruneClanChanges(ctx context.Context) {
	before := s.clock.Now().Add(-clanChangeRetention).Unix()
	if err := s.session(ctx).Exec(`DELETE FROM clan_changes WHERE changed_at < ?`, before).Error; err != nil && ctx.Err() == nil {
		s.log.Warn("cannot prune the clan change outbox", "error", s.translate(err))
	}
}
