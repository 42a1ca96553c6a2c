package api

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/crownsdev/crowns/models"
)

// errLocked is the failure of a write the database could not take.
var errLocked = models.Unavailable("database", 0, errors.New("database is locked"))

// failingTournamentStore fails its first failures writes, then keeps
// what it is given.
type failingTournamentStore struct {
	mu       sync.Mutex
	failures int
	writes   int
	saved    map[string]models.TournamentDetails
}

func (f *failingTournamentStore) SaveRequestedTournament(_ context.Context, details models.TournamentDetails, _ time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.writes++
	if f.writes <= f.failures {
		return errLocked
	}
	if f.saved == nil {
		f.saved = make(map[string]models.TournamentDetails)
	}
	f.saved[details.Tag] = details
	return nil
}

func (f *failingTournamentStore) ListTournaments(context.Context, []models.TournamentPredicate, int) ([]models.TournamentRecord, error) {
	return nil, nil
}

func (f *failingTournamentStore) state() (writes int, saved map[string]models.TournamentDetails) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.writes, f.saved
}

// A looked-up tournament whose write failed is written again, with
// backoff, until the database takes it; looked up again meanwhile, the
// newer lookup is the one stored.
func TestALookedUpTournamentWhoseWriteFailedIsStoredLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &failingTournamentStore{failures: 3}
		saves := newTournamentSaves(store, slog.New(slog.DiscardHandler), time.Second)
		defer saves.close()
		seen := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
		saves.retry(models.TournamentDetails{Tag: "2PP", Name: "first look"}, seen, errLocked)
		synctest.Wait()
		saves.retry(models.TournamentDetails{Tag: "2PP", Name: "second look"}, seen.Add(time.Minute), errLocked)
		time.Sleep(10 * time.Minute) // in the bubble: the backoff's waits pass at once
		synctest.Wait()
		writes, saved := store.state()
		if got := saved["2PP"].Name; got != "second look" || writes != 4 {
			t.Fatalf("stored %q after %d writes; want the second look, stored at the 4th write (3 failed)", got, writes)
		}
	})
}

// Stopped while the database still fails, the retries end and say which
// tournament is missing from the known list.
func TestStoppedTournamentSavesSayWhatWasNotStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log strings.Builder
		var logMu sync.Mutex
		store := &failingTournamentStore{failures: 1 << 30}
		saves := newTournamentSaves(store, slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &logMu}, nil)), time.Second)
		saves.retry(models.TournamentDetails{Tag: "2PP"}, time.Now(), errLocked)
		time.Sleep(5 * time.Minute)
		saves.close()
		logMu.Lock()
		defer logMu.Unlock()
		if !strings.Contains(log.String(), "was not stored before the server stopped") || !strings.Contains(log.String(), "tag=2PP") {
			t.Fatalf("log after stopping:\n%s", log.String())
		}
		if writes, _ := store.state(); writes < 2 {
			t.Fatalf("%d writes in 5 minutes of a failing database, want retries", writes)
		}
	})
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	w  *strings.Builder
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Only writes the database could not take are tried again: one it
// refused for another reason is not, nor one after the saves closed.
func TestOnlyUnavailableTournamentWritesAreTriedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &failingTournamentStore{}
		saves := newTournamentSaves(store, slog.New(slog.DiscardHandler), time.Second)
		if saves.retry(models.TournamentDetails{Tag: "2PP"}, time.Now(), errors.New("constraint violated")) {
			t.Error("a write refused for another reason than an unavailable database is tried again")
		}
		saves.close()
		if saves.retry(models.TournamentDetails{Tag: "2PP"}, time.Now(), errLocked) {
			t.Error("a write is tried again after the saves closed")
		}
		if writes, _ := store.state(); writes != 0 {
			t.Errorf("%d writes, want none", writes)
		}
	})
}

// funcTournamentStore writes through save.
type funcTournamentStore struct {
	save func(ctx context.Context, details models.TournamentDetails) error
}

func (f funcTournamentStore) SaveRequestedTournament(ctx context.Context, details models.TournamentDetails, _ time.Time) error {
	return f.save(ctx, details)
}

func (funcTournamentStore) ListTournaments(context.Context, []models.TournamentPredicate, int) ([]models.TournamentRecord, error) {
	return nil, nil
}

// A write the close cancels is a write not stored before the server
// stopped (a warning), not a refusal of the database (an error).
func TestATournamentWriteCancelledByCloseIsLoggedAsNotStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log strings.Builder
		var logMu sync.Mutex
		writing := make(chan struct{}, 1)
		store := funcTournamentStore{save: func(ctx context.Context, _ models.TournamentDetails) error {
			writing <- struct{}{}
			<-ctx.Done()
			return ctx.Err()
		}}
		saves := newTournamentSaves(store, slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &logMu}, nil)), time.Hour)
		saves.retry(models.TournamentDetails{Tag: "2PP"}, time.Now(), errLocked)
		<-writing
		saves.close()
		logMu.Lock()
		defer logMu.Unlock()
		if !strings.Contains(log.String(), "was not stored before the server stopped") || strings.Contains(log.String(), "not trying again") {
			t.Fatalf("log:\n%s", log.String())
		}
	})
}

// A lookup that arrives while the write of an older one is under way is
// written, even when that older write is refused for good.
func TestANewerLookupOutlivesARefusedOlderWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var mu sync.Mutex
		var stored []string
		store := funcTournamentStore{save: func(_ context.Context, details models.TournamentDetails) error {
			if details.Name == "first look" {
				<-release
				return errors.New("constraint violated")
			}
			mu.Lock()
			defer mu.Unlock()
			stored = append(stored, details.Name)
			return nil
		}}
		saves := newTournamentSaves(store, slog.New(slog.DiscardHandler), time.Second)
		defer saves.close()
		saves.retry(models.TournamentDetails{Tag: "2PP", Name: "first look"}, time.Now(), errLocked)
		time.Sleep(5 * time.Second) // the first retry's write is under way
		synctest.Wait()
		if !saves.retry(models.TournamentDetails{Tag: "2PP", Name: "second look"}, time.Now(), errLocked) {
			t.Fatal("the newer lookup was not taken")
		}
		close(release)
		time.Sleep(time.Minute)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(stored) != 1 || stored[0] != "second look" {
			t.Fatalf("stored %v, want the second look", stored)
		}
	})
}

// retry and close may run at once (a lookup outliving its request ends as
// the server stops): no loop starts after close, and none is left behind.
func TestTournamentRetriesAndCloseMayRace(t *testing.T) {
	for range 200 {
		saves := newTournamentSaves(&failingTournamentStore{failures: 1 << 30}, slog.New(slog.DiscardHandler), time.Second)
		done := make(chan struct{})
		go func() {
			defer close(done)
			saves.retry(models.TournamentDetails{Tag: "2PP"}, time.Now(), errLocked)
		}()
		saves.close()
		<-done
		saves.close() // waits for a loop the retry may have started first
	}
}
