package endtoend_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// countingHistory is the clan store as the API reads history from it,
// counting full reads and fingerprint queries; failFingerprints makes the
// fingerprint queries fail.
type countingHistory struct {
	api.ClanHistoryReader
	reads, fingerprints atomic.Int64
	failFingerprints    atomic.Bool
}

func (h *countingHistory) FingerprintedClanHistory(ctx context.Context, tag string, kind models.SnapshotKind, from, to time.Time) ([]models.HistorySnapshot, models.HistoryFingerprint, error) {
	h.reads.Add(1)
	return h.ClanHistoryReader.FingerprintedClanHistory(ctx, tag, kind, from, to)
}

func (h *countingHistory) ClanHistoryFingerprint(ctx context.Context, tag string, kind models.SnapshotKind, from, to time.Time) (models.HistoryFingerprint, error) {
	h.fingerprints.Add(1)
	if h.failFingerprints.Load() {
		return models.HistoryFingerprint{}, errors.New("fingerprint query failed")
	}
	return h.ClanHistoryReader.ClanHistoryFingerprint(ctx, tag, kind, from, to)
}

// historyCalls is how many full reads and fingerprint queries were made.
type historyCalls struct{ reads, fingerprints int64 }

func (h *countingHistory) calls() historyCalls {
	return historyCalls{h.reads.Load(), h.fingerprints.Load()}
}

func TestHistoryCacheRevalidatesWithTheFingerprintAtTTLEnd(t *testing.T) {
	storetest.EachEngineTwins(t, func(t *testing.T, db, otherProcess *store.Store) {
		ctx := context.Background()
		history := &countingHistory{}
		e := newTrackingEnvReading(t, db, func(clans api.ClanHistoryReader) api.ClanHistoryReader {
			history.ClanHistoryReader = clans
			return history
		}, withHistoryCache)
		tag := e.withAddress
		path := "/clan/" + tag + "/history?days=0"
		if status, body, _ := e.get(t, "/clan/"+tag+"/track"); status != http.StatusOK {
			t.Fatalf("track: %d %s", status, body)
		}
		// Another process on the same database, which this one never hears
		// of (SQLite, or no listener running).

		// atTTLEnd moves the clock to the end of the cached answer's
		// lifetime, gets path once and checks the answer and what
		// producing it cost: calls in all, and when renewed one query
		// only. Then the new answer must be kept for a whole lifetime.
		var lifetimeEnds time.Time
		atTTLEnd := func(step string, status int, want string, calls historyCalls, renewed bool) {
			t.Helper()
			e.clock.Set(lifetimeEnds)
			before := e.db.QueryCount()
			gotStatus, body, _ := e.get(t, path)
			queries := e.db.QueryCount() - before
			switch {
			case status == http.StatusOK && (gotStatus != status || string(body) != want):
				t.Fatalf("%s: %d %.200s, want %.200s", step, gotStatus, body, want)
			case status != http.StatusOK:
				wantError(t, gotStatus, body, status, want)
			}
			if got := history.calls(); got != calls {
				t.Fatalf("%s: %+v history calls in all, want %+v", step, got, calls)
			}
			if renewed && queries != 1 {
				t.Fatalf("%s: the renewal cost %d queries, want 1", step, queries)
			}
			lifetimeEnds = e.clock.Now().Add(historyCacheTTL)
			e.clock.Set(lifetimeEnds.Add(-time.Second))
			e.expectCachedAnswer(t, path, status, want)
			if got := history.calls(); got != calls {
				t.Fatalf("%s: %+v history calls within the new lifetime, want %+v", step, got, calls)
			}
		}

		answer := string(e.storeAnswer(t, tag, models.SnapshotFourHourly, 0))
		e.expectCachedAnswer(t, path, http.StatusOK, answer)
		lifetimeEnds = e.clock.Now().Add(historyCacheTTL)
		if got := history.calls(); got != (historyCalls{reads: 1}) {
			t.Fatalf("first answer: %+v history calls, want one read and no fingerprint", got)
		}
		atTTLEnd("nothing changed", http.StatusOK, answer, historyCalls{reads: 1, fingerprints: 1}, true)
		atTTLEnd("nothing changed again", http.StatusOK, answer, historyCalls{reads: 1, fingerprints: 2}, true)

		// The other process stores an earlier slot of today.
		e.storeEarlierSlot(t, otherProcess, tag)
		fresh := string(e.storeAnswer(t, tag, models.SnapshotFourHourly, 0))
		if fresh == answer {
			t.Fatal("the other process's snapshot changed nothing")
		}
		atTTLEnd("a snapshot stored elsewhere", http.StatusOK, fresh, historyCalls{reads: 2, fingerprints: 3}, false)
		atTTLEnd("nothing changed since", http.StatusOK, fresh, historyCalls{reads: 2, fingerprints: 4}, true)

		// The other process stops tracking the clan: the refusal, renewed
		// the same way.
		if _, err := otherProcess.Untrack(ctx, tag, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		atTTLEnd("untracked elsewhere", http.StatusExpectationFailed, "clan not tracked", historyCalls{reads: 3, fingerprints: 5}, false)
		atTTLEnd("still untracked", http.StatusExpectationFailed, "clan not tracked", historyCalls{reads: 3, fingerprints: 6}, true)
		clan, err := e.world.Clan(ctx, tag)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := otherProcess.Track(ctx, models.TrackRequest{Tag: tag, Clan: clan, Legible: true, By: models.TrackedByOperator, Now: e.clock.Now()}); err != nil {
			t.Fatal(err)
		}
		fresh = string(e.storeAnswer(t, tag, models.SnapshotFourHourly, 0))
		atTTLEnd("tracked again elsewhere", http.StatusOK, fresh, historyCalls{reads: 4, fingerprints: 7}, false)

		// A fingerprint query that fails is no answer: the history is read.
		history.failFingerprints.Store(true)
		atTTLEnd("the fingerprint query fails", http.StatusOK, fresh, historyCalls{reads: 5, fingerprints: 8}, false)
		history.failFingerprints.Store(false)

		// A database that cannot answer fails the request as it did.
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		e.clock.Set(lifetimeEnds)
		status, body, _ := e.get(t, path)
		wantError(t, status, body, http.StatusServiceUnavailable, "Temporarily unavailable")
	})
}
