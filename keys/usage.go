package keys

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/internal/outage"
	"github.com/crownsdev/crowns/models"
)

// finalFlushTimeout bounds the flush Run makes after its context ends,
// flushTimeout each periodic flush.
const (
	finalFlushTimeout = 5 * time.Second
	flushTimeout      = 10 * time.Second
)

// keyUse is the latest successful verification of one key, kept in memory
// until Flush writes it.
type keyUse struct {
	keyID int64
	// latest is in Unix nanoseconds; written lock-free on the hot path.
	latest atomic.Int64
	// flushed is the latest value written; only Flush touches it.
	flushed int64
}

// usePrecision is how exact a key's last use is kept: a use within it of
// the last one recorded is not written again, so the many requests of a
// busy key do not all write to one shared word.
const usePrecision = int64(time.Second)

// record notes a use at now, keeping the latest (to usePrecision).
func (u *keyUse) record(now int64) {
	for {
		old := u.latest.Load()
		if now-old < usePrecision || u.latest.CompareAndSwap(old, now) {
			return
		}
	}
}

// usageLog is the set of keys whose use is tracked in memory.
type usageLog struct {
	mu   sync.Mutex
	uses map[int64]*keyUse
}

func newUsageLog() *usageLog { return &usageLog{uses: make(map[int64]*keyUse)} }

// track returns the tracker of keyID, creating it.
func (l *usageLog) track(keyID int64) *keyUse {
	l.mu.Lock()
	defer l.mu.Unlock()
	u, ok := l.uses[keyID]
	if !ok {
		u = &keyUse{keyID: keyID}
		l.uses[keyID] = u
	}
	return u
}

// pendingUse is a use to write: the tracker and the time read from it.
type pendingUse struct {
	use    *keyUse
	latest int64
}

// pending returns the uses not yet written, and drops trackers idle since
// before idleBefore: every cached verdict pointing at those has expired,
// so no one records into them any more.
func (l *usageLog) pending(idleBefore int64) []pendingUse {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []pendingUse
	for id, u := range l.uses {
		latest := u.latest.Load()
		switch {
		case latest > u.flushed:
			out = append(out, pendingUse{use: u, latest: latest})
		case latest < idleBefore:
			delete(l.uses, id)
		}
	}
	return out
}

// Flush writes the request counts made since the previous flush (see
// Count), then the latest use of every key verified since then, in
// batched statements. After a failure the same counts and uses are tried
// again by the next Flush, the counts as the same batch (see
// flushUsage), so counts the database committed before the failure are
// not added twice.
func (s *Service) Flush(ctx context.Context) error {
	s.flushing.Lock()
	defer s.flushing.Unlock()
	if err := s.flushUsage(ctx); err != nil {
		return fmt.Errorf("write the request counts and last-use times: %w", err)
	}
	idleBefore := s.clock.Now().UnixNano() - s.cache.syncedTTL
	pending := s.usage.pending(idleBefore)
	if len(pending) == 0 {
		return nil
	}
	uses := make(map[int64]time.Time, len(pending))
	for _, p := range pending {
		uses[p.use.keyID] = time.Unix(0, p.latest).UTC()
	}
	if err := s.db.MarkKeysUsed(ctx, uses); err != nil {
		return fmt.Errorf("write the last-use times (the request counts are written): %w", err)
	}
	for _, p := range pending {
		p.use.flushed = p.latest
	}
	return nil
}

// Run reads the key-event feed at once and every SyncInterval (see Sync),
// and flushes request counts and last-use times every FlushInterval
// (deleting usage past models.KeyUsageRetention, and usage batch ids past
// models.KeyUsageBatchRetention, once an hour), until ctx
// ends; then it
// flushes once more, trying again for a few seconds (finalFlushTimeout)
// while the database fails, so a graceful shutdown loses nothing.
// Failures are retried at the next tick and logged as package outage
// does: when they start, a reminder a minute, when they end. The
// two run in separate loops, each try bounded by its own timeout: a
// flush stalled on a locked table never holds up the sync, whose success
// is what keeps cached verdicts trusted.
func (s *Service) Run(ctx context.Context) {
	ctx = models.AsBackground(ctx)
	syncDone := make(chan struct{})
	go func() {
		defer close(syncDone)
		s.runSync(ctx)
	}()
	ticker := time.NewTicker(s.flushInterval)
	defer ticker.Stop()
	unflushed := s.outageLog("cannot write key usage: kept for the next flush", "writing key usage again")
	unretained := s.outageLog("cannot delete old key usage", "deleting old key usage again")
	for {
		select {
		case <-ticker.C:
			flushCtx, cancel := context.WithTimeout(ctx, flushTimeout)
			unflushed.Outcome(ctx, s.Flush(flushCtx))
			unretained.Outcome(ctx, s.retainUsage(flushCtx))
			cancel()
		case <-ctx.Done():
			final, cancel := context.WithTimeout(context.WithoutCancel(ctx), finalFlushTimeout)
			s.flushFinal(final)
			cancel()
			<-syncDone
			return
		}
	}
}

// outageLog logs the failures of one of Run's loops (see package outage).
func (s *Service) outageLog(failing, recovered string) *outage.Log {
	return outage.New(outage.Config{Logger: s.log, Now: s.clock.Now, Failing: failing, Recovered: recovered})
}

// finalFlushRetry spaces the tries of the flush at shutdown.
var finalFlushRetry = backoff.Policy{First: 50 * time.Millisecond, Max: time.Second}

// flushFinal is the flush at shutdown. What it cannot write is lost, so
// a database that cannot answer now (restarting, a connection cut) is
// tried again until ctx ends; a failure that will not pass, at once, and
// either is then logged as an error.
func (s *Service) flushFinal(ctx context.Context) {
	for failures := 1; ; failures++ {
		err := s.Flush(ctx)
		if err == nil {
			return
		}
		if errors.Is(err, models.ErrUnavailable) && backoff.Wait(ctx, finalFlushRetry.Delay(failures)) {
			continue
		}
		s.flushing.Lock()
		requests, keyCount := s.counts.unsentTotals()
		s.flushing.Unlock()
		s.log.ErrorContext(ctx, "cannot write key usage at shutdown: what the error names, since the last flush, is lost", "error", err, "tries", failures,
			"lostRequests", requests, "lostKeys", keyCount)
		return
	}
}
