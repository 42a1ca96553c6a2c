package keys

import (
	"context"
	"crypto/rand"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/crownsdev/crowns/models"
)

// usageShards is the number of independently locked parts of the usage
// counters: concurrent requests of different keys rarely wait on each
// other.
const usageShards = 16

// usageRetentionEvery is how often Run deletes usage older than
// models.KeyUsageRetention.
const usageRetentionEvery = time.Hour

// maxUnsentUsageCells bounds the counts kept in memory while the
// database cannot take them (about 100 bytes a cell, so some 20 MB): 10,000
// keys each on three routes fill it in about six hours of outage. Past
// it, the oldest hours' counts go first (see usageCounts.trimUnsent).
const maxUnsentUsageCells = 200_000

// usageCell names one in-memory counter: a key, the start of a UTC hour
// in Unix seconds and a route pattern.
type usageCell struct {
	keyID int64
	hour  int64
	route string
}

// usageCounts are the requests counted since the last flush, split over
// shards by key id, each behind its own mutex. Flush swaps each shard's
// map for an empty one, so counting never waits for the database.
type usageCounts struct {
	shards [usageShards]usageShard
	// waiting holds the counts taken from the shards and not yet tried:
	// those of flushes that met a failed batch, summed. failed is the
	// batch whose write failed: it may have been written all the same
	// (the connection cut after the commit), so it is tried again as it
	// is, under its id, before waiting becomes the next batch, never
	// merged with it. Together they hold at most maxUnsent cells. Only
	// Flush touches them (under Service.flushing).
	waiting   map[models.KeyUsageCell]models.KeyUsageCount
	failed    *models.KeyUsageBatch
	maxUnsent int
	// retainedAt is when Run last deleted old usage.
	retainedAt time.Time
}

type usageShard struct {
	mu     sync.Mutex
	counts map[usageCell]*models.KeyUsageCount
}

func newUsageCounts() *usageCounts {
	u := &usageCounts{waiting: make(map[models.KeyUsageCell]models.KeyUsageCount), maxUnsent: maxUnsentUsageCells}
	for i := range u.shards {
		u.shards[i].counts = make(map[usageCell]*models.KeyUsageCount)
	}
	return u
}

// Count counts one answered request of a key to a route pattern with its
// status, at the request's time: a 429 is rate-limited, other 4xx and 5xx
// are errors. route should be a string kept by the caller (the route's
// registered pattern): it is held until the next flush. Safe for
// concurrent use; it allocates only for the first request of a key, hour
// and route since the last flush.
func (s *Service) Count(keyID int64, route string, status int, at time.Time) {
	cell := usageCell{keyID: keyID, hour: at.Unix() - at.Unix()%3600, route: route}
	sh := &s.counts.shards[uint64(keyID)%usageShards]
	sh.mu.Lock()
	c := sh.counts[cell]
	if c == nil {
		c = &models.KeyUsageCount{}
		sh.counts[cell] = c
	}
	c.Requests++
	switch {
	case status == http.StatusTooManyRequests:
		c.RateLimited++
	case status >= 500:
		c.ServerErrors++
	case status >= 400:
		c.ClientErrors++
	}
	sh.mu.Unlock()
}

// take swaps out the counts made since the last call and adds them to the
// waiting ones.
func (u *usageCounts) take() {
	for i := range u.shards {
		sh := &u.shards[i]
		sh.mu.Lock()
		counts := sh.counts
		if len(counts) == 0 {
			sh.mu.Unlock()
			continue
		}
		sh.counts = make(map[usageCell]*models.KeyUsageCount, len(counts))
		sh.mu.Unlock()
		for cell, c := range counts {
			key := models.KeyUsageCell{KeyID: cell.keyID, Hour: time.Unix(cell.hour, 0).UTC(), Route: cell.route}
			sum := u.waiting[key]
			sum.Add(*c)
			u.waiting[key] = sum
		}
	}
}

// unsent returns the maps of counts not yet written: the failed batch's,
// if any, and the waiting ones.
func (u *usageCounts) unsent() []map[models.KeyUsageCell]models.KeyUsageCount {
	if u.failed == nil {
		return []map[models.KeyUsageCell]models.KeyUsageCount{u.waiting}
	}
	return []map[models.KeyUsageCell]models.KeyUsageCount{u.failed.Counts, u.waiting}
}

// trimUnsent drops the counts of the oldest hours while more than
// maxUnsent cells wait, and returns the requests and cells dropped. Cells
// dropped from the failed batch leave its id as it is: if the batch was
// written after all, it is not written again; if not, what is left of it
// is.
func (u *usageCounts) trimUnsent() (requests int64, cells int) {
	unsent := u.unsent()
	size := func() (n int) {
		for _, m := range unsent {
			n += len(m)
		}
		return n
	}
	if size() <= u.maxUnsent {
		return 0, 0
	}
	var hours []time.Time
	for _, m := range unsent {
		for cell := range m {
			if !slices.ContainsFunc(hours, cell.Hour.Equal) {
				hours = append(hours, cell.Hour)
			}
		}
	}
	slices.SortFunc(hours, time.Time.Compare)
	for _, hour := range hours {
		if size() <= u.maxUnsent {
			break
		}
		for _, m := range unsent {
			for cell, c := range m {
				if cell.Hour.Equal(hour) {
					requests += c.Requests
					cells++
					delete(m, cell)
				}
			}
		}
	}
	if u.failed != nil && len(u.failed.Counts) == 0 {
		u.failed = nil
	}
	return requests, cells
}

// unsentTotals sums the counts waiting for the database: their requests
// and the number of keys they are of. Only Flush's callers (under
// Service.flushing) may call it.
func (u *usageCounts) unsentTotals() (requests int64, keys int) {
	seen := make(map[int64]struct{})
	for _, m := range u.unsent() {
		for cell, c := range m {
			requests += c.Requests
			seen[cell.KeyID] = struct{}{}
		}
	}
	return requests, len(seen)
}

// flushUsage writes the counts made since the last successful flush, each
// count at most once: first the batch whose write failed, if any, as it
// is (see models.KeyUsageBatch), then the counts waiting as a new batch
// with a new random id. On failure the counts stay for the next call,
// within maxUnsentUsageCells (what is dropped past it is logged).
func (s *Service) flushUsage(ctx context.Context) error {
	s.counts.take()
	if requests, cells := s.counts.trimUnsent(); cells > 0 {
		s.log.ErrorContext(ctx, "key usage waiting for the database over its bound: the oldest hours' counts are dropped",
			"requests", requests, "cells", cells, "bound", s.counts.maxUnsent)
	}
	if s.counts.failed != nil {
		if err := s.db.AddKeyUsage(ctx, *s.counts.failed); err != nil {
			return err
		}
		s.counts.failed = nil
	}
	if len(s.counts.waiting) == 0 {
		return nil
	}
	s.counts.failed = &models.KeyUsageBatch{ID: rand.Text(), At: s.clock.Now(), Counts: s.counts.waiting}
	s.counts.waiting = make(map[models.KeyUsageCell]models.KeyUsageCount)
	if err := s.db.AddKeyUsage(ctx, *s.counts.failed); err != nil {
		return err
	}
	s.counts.failed = nil
	return nil
}

// retainUsage deletes usage older than models.KeyUsageRetention, and the
// ids of usage batches older than models.KeyUsageBatchRetention, at most
// once every usageRetentionEvery; a failed delete is tried again at the
// next call.
func (s *Service) retainUsage(ctx context.Context) error {
	s.flushing.Lock()
	defer s.flushing.Unlock()
	now := s.clock.Now()
	if now.Sub(s.counts.retainedAt) < usageRetentionEvery {
		return nil
	}
	if _, err := s.db.DeleteKeyUsageBefore(ctx, now.Add(-models.KeyUsageRetention)); err != nil {
		return err
	}
	if _, err := s.db.DeleteKeyUsageBatchesBefore(ctx, now.Add(-models.KeyUsageBatchRetention)); err != nil {
		return err
	}
	s.counts.retainedAt = now
	return nil
}
