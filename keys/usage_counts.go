package keys

import (
	"context"
	"net/http"
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

// usageSlot names one in-memory counter: a key, the start of a UTC hour
// in Unix seconds and a route pattern.
type usageSlot struct {
	keyID int64
	hour  int64
	route string
}

// usageCounts are the requests counted since the last flush, split over
// shards by key id, each behind its own mutex. Flush swaps each shard's
// map for an empty one, so counting never waits for the database.
type usageCounts struct {
	shards [usageShards]usageShard
	// unsent holds the counts of a failed flush, tried again by the next
	// one; only Flush touches it (under Service.flushing).
	unsent map[models.KeyUsageSlot]models.KeyUsageCount
	// retainedAt is when Run last deleted old usage.
	retainedAt time.Time
}

type usageShard struct {
	mu     sync.Mutex
	counts map[usageSlot]*models.KeyUsageCount
}

func newUsageCounts() *usageCounts {
	u := &usageCounts{unsent: make(map[models.KeyUsageSlot]models.KeyUsageCount)}
	for i := range u.shards {
		u.shards[i].counts = make(map[usageSlot]*models.KeyUsageCount)
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
	slot := usageSlot{keyID: keyID, hour: at.Unix() - at.Unix()%3600, route: route}
	sh := &s.counts.shards[uint64(keyID)%usageShards]
	sh.mu.Lock()
	c := sh.counts[slot]
	if c == nil {
		c = &models.KeyUsageCount{}
		sh.counts[slot] = c
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
// unsent ones, which it returns.
func (u *usageCounts) take() map[models.KeyUsageSlot]models.KeyUsageCount {
	for i := range u.shards {
		sh := &u.shards[i]
		sh.mu.Lock()
		counts := sh.counts
		if len(counts) == 0 {
			sh.mu.Unlock()
			continue
		}
		sh.counts = make(map[usageSlot]*models.KeyUsageCount, len(counts))
		sh.mu.Unlock()
		for slot, c := range counts {
			key := models.KeyUsageSlot{KeyID: slot.keyID, Hour: time.Unix(slot.hour, 0).UTC(), Route: slot.route}
			sum := u.unsent[key]
			sum.Add(*c)
			u.unsent[key] = sum
		}
	}
	return u.unsent
}

// flushUsage writes the counts made since the last successful flush; on
// failure they stay for the next one.
func (s *Service) flushUsage(ctx context.Context) error {
	pending := s.counts.take()
	if len(pending) == 0 {
		return nil
	}
	if err := s.db.AddKeyUsage(ctx, pending); err != nil {
		return err
	}
	s.counts.unsent = make(map[models.KeyUsageSlot]models.KeyUsageCount)
	return nil
}

// retainUsage deletes usage older than models.KeyUsageRetention, at most
// once every usageRetentionEvery.
func (s *Service) retainUsage(ctx context.Context) {
	s.flushing.Lock()
	defer s.flushing.Unlock()
	now := s.clock.Now()
	if now.Sub(s.counts.retainedAt) < usageRetentionEvery {
		return
	}
	if _, err := s.db.DeleteKeyUsageBefore(ctx, now.Add(-models.KeyUsageRetention)); err != nil {
		s.log.WarnContext(ctx, "cannot delete old key usage", "error", err)
		return
	}
	s.counts.retainedAt = now
}
