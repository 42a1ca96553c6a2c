package keys_test

import (
	"context"
	"maps"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/crownsdev/crowns/internal/faultproxy"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// unheardCommitStore writes usage through the real store, then answers
// its first writes with the error of a connection cut before the commit's
// answer came back: the batch is written, the caller cannot tell. It
// keeps every batch it is given.
type unheardCommitStore struct {
	keys.Store
	failures int
	batches  []models.KeyUsageBatch
}

func (u *unheardCommitStore) AddKeyUsage(ctx context.Context, batch models.KeyUsageBatch) error {
	u.batches = append(u.batches, models.KeyUsageBatch{ID: batch.ID, At: batch.At, Counts: maps.Clone(batch.Counts)})
	if err := u.Store.AddKeyUsage(ctx, batch); err != nil {
		return err
	}
	if u.failures > 0 {
		u.failures--
		return models.Unavailable("database", time.Second, syscall.ECONNRESET)
	}
	return nil
}

// TestUsageWrittenBeforeAFailedFlushIsNotCountedTwice: a flush whose
// batch was committed although the flush failed tries the same batch
// again (same id, same counts), which adds nothing; the requests counted
// since go in a batch of their own, written once.
func TestUsageWrittenBeforeAFailedFlushIsNotCountedTwice(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		unheard := &unheardCommitStore{Store: db, failures: 1}
		clock := models.NewManualClock(testStart)
		service := newService(t, unheard, clock)
		alice := issue(t, service, "1")
		for range 7 {
			service.Count(alice.KeyID, "/clan/search", http.StatusOK, clock.Now())
		}
		if err := service.Flush(ctx); err == nil {
			t.Fatal("the flush whose answer was lost succeeded")
		}
		for range 3 {
			service.Count(alice.KeyID, "/clan/search", http.StatusOK, clock.Now())
		}
		if err := service.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		report, err := service.KeyUsage(ctx, alice.KeyID, 1, clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if got := report.Total().Requests; got != 10 {
			t.Errorf("stored requests = %d, want 10 (7 before the failure, 3 after)", got)
		}
		if len(unheard.batches) != 3 {
			t.Fatalf("%d batches written, want 3: the first, the first again, the newer counts", len(unheard.batches))
		}
		first, again, newer := unheard.batches[0], unheard.batches[1], unheard.batches[2]
		if again.ID != first.ID || !maps.Equal(again.Counts, first.Counts) {
			t.Errorf("the batch tried again is %s %v, want the failed one, %s %v", again.ID, again.Counts, first.ID, first.Counts)
		}
		if newer.ID == first.ID || requestsIn(newer) != 3 {
			t.Errorf("the newer counts went in batch %s with %d requests, want a batch of their own with 3", newer.ID, requestsIn(newer))
		}
	})
}

// requestsIn sums a batch's requests.
func requestsIn(batch models.KeyUsageBatch) (requests int64) {
	for _, c := range batch.Counts {
		requests += c.Requests
	}
	return requests
}

// TestUsageOfAFlushCutOffIsWrittenOnceOnPostgres: on PostgreSQL behind a
// proxy, a flush whose connection is cut right after its COMMIT reached
// the server (written, the answer lost) and one whose connection is
// refused (nothing written) both fail; the next flush leaves each
// written once.
func TestUsageOfAFlushCutOffIsWrittenOnceOnPostgres(t *testing.T) {
	tests := []struct {
		name string
		cut  func(*faultproxy.Proxy)
		// heal undoes cut before the next flush.
		heal func(*faultproxy.Proxy)
		// writtenByTheFailure is what the failed flush stored.
		writtenByTheFailure int64
	}{
		{"cut after the commit", (*faultproxy.Proxy).CutAfterCommit, func(*faultproxy.Proxy) {}, 5},
		{"refused", (*faultproxy.Proxy).Refuse, (*faultproxy.Proxy).Accept, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			clock := models.NewManualClock(testStart)
			db, proxy, _ := storetest.OpenBehindProxy(t, nil, nil, clock)
			service := newService(t, db, clock)
			alice := issue(t, service, "1")
			for range 5 {
				service.Count(alice.KeyID, "/clan/search", http.StatusOK, clock.Now())
			}
			tt.cut(proxy)
			if err := service.Flush(ctx); err == nil {
				t.Fatal("the flush cut off succeeded")
			}
			tt.heal(proxy)
			stored := func() int64 {
				t.Helper()
				report, err := service.KeyUsage(ctx, alice.KeyID, 1, clock.Now())
				if err != nil {
					t.Fatal(err)
				}
				return report.Total().Requests
			}
			if got := stored(); got != tt.writtenByTheFailure {
				t.Fatalf("the failed flush stored %d requests, want %d", got, tt.writtenByTheFailure)
			}
			if err := service.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			if got := stored(); got != 5 {
				t.Errorf("stored requests after the next flush = %d, want 5", got)
			}
		})
	}
}
