package keys_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// The tests below run in a synctest bubble: synctest.Wait returns once
// every verification under way is blocked (waiting at the gate, or for a
// lookup it joined), so a lookup that should not exist has had every
// chance to begin; and time moves only when everything waits.

// TestConcurrentVerificationsOfOneKeyShareALookup: the first requests of
// a key after a start (or a known key's rechecks while the database
// fails) come together; they make one database lookup, not one each,
// and the first client going away does not fail the others.
func TestConcurrentVerificationsOfOneKeyShareALookup(t *testing.T) {
	issued, gated, service := gatedService(t, false)
	synctest.Test(t, func(t *testing.T) {
		gated.close()
		firstCtx, leave := context.WithCancel(context.Background())
		firstDone := make(chan error, 1)
		go func() {
			_, err := service.VerifyAt(firstCtx, issued.Key, testStart)
			firstDone <- err
		}()
		synctest.Wait()
		leave()
		// The first caller left: it is told the database did not answer in
		// its time, and its lookup goes on for the others.
		if err := <-firstDone; !isUnavailable(err) {
			t.Errorf("the caller that left got %v, want the database unavailable", err)
		}
		const others = 7
		results := make(chan verification, others)
		for range others {
			go verifyInto(results, service, context.Background(), issued.Key)
		}
		synctest.Wait()
		if calls := gated.calls.Load(); calls != 1 {
			t.Errorf("%d lookups under way for %d concurrent verifications of one key, want 1", calls, others+1)
		}
		gated.open()
		for range others {
			r := <-results
			if r.err != nil || r.identity.KeyID != issued.KeyID {
				t.Errorf("verified as key %d (%v), want key %d", r.identity.KeyID, r.err, issued.KeyID)
			}
		}
	})
}

// TestAVerificationBegunAfterAChangeMakesItsOwnLookup: a lookup that read
// a key's row before the key was revoked may still be answering; a
// verification that begins after the revocation does not take its
// answer, but looks the key up again and finds it revoked.
func TestAVerificationBegunAfterAChangeMakesItsOwnLookup(t *testing.T) {
	issued, gated, service := gatedService(t, true)
	synctest.Test(t, func(t *testing.T) {
		gated.close()
		before := make(chan verification, 1)
		go verifyInto(before, service, context.Background(), issued.Key)
		synctest.Wait() // its row is read: the key is active
		if err := service.Revoke(context.Background(), "300", "moderator", "leaked"); err != nil {
			t.Fatal(err)
		}
		after := make(chan verification, 1)
		go verifyInto(after, service, context.Background(), issued.Key)
		synctest.Wait()
		if calls := gated.calls.Load(); calls != 2 {
			t.Errorf("%d lookups: the verification begun after the revocation made none of its own", calls)
		}
		gated.open()
		if r := <-after; !errors.Is(r.err, models.ErrUnknownKey) {
			t.Errorf("verification begun after the revocation: key %d, %v; want models.ErrUnknownKey", r.identity.KeyID, r.err)
		}
		<-before
	})
}

// TestAVerificationWaitsForASharedLookupNoLongerThanItsContext: a caller
// that joins a lookup stops waiting when its own context ends, told that
// the database did not answer.
func TestAVerificationWaitsForASharedLookupNoLongerThanItsContext(t *testing.T) {
	issued, gated, service := gatedService(t, false)
	synctest.Test(t, func(t *testing.T) {
		gated.close()
		first := make(chan verification, 1)
		go verifyInto(first, service, context.Background(), issued.Key)
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		waiter := make(chan verification, 1)
		began := time.Now()
		go verifyInto(waiter, service, ctx, issued.Key)
		r := <-waiter
		if !isUnavailable(r.err) {
			t.Errorf("the waiter whose context ended got key %d, %v; want the database unavailable", r.identity.KeyID, r.err)
		}
		if waited := time.Since(began); waited != 50*time.Millisecond {
			t.Errorf("the waiter waited %s, want its context's 50ms", waited)
		}
		gated.open()
		if r := <-first; r.err != nil || r.identity.KeyID != issued.KeyID {
			t.Errorf("the first caller got key %d, %v; want key %d", r.identity.KeyID, r.err, issued.KeyID)
		}
		if calls := gated.calls.Load(); calls != 1 {
			t.Errorf("%d lookups: the waiter made one of its own instead of joining", calls)
		}
	})
}

// TestASharedLookupOutlivesItsFirstCallersDeadline: the first caller's
// deadline ends its own wait, not the lookup others joined with more
// time left.
func TestASharedLookupOutlivesItsFirstCallersDeadline(t *testing.T) {
	issued, gated, service := gatedService(t, false)
	synctest.Test(t, func(t *testing.T) {
		gated.close()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		first := make(chan verification, 1)
		go verifyInto(first, service, ctx, issued.Key)
		synctest.Wait()
		joiner := make(chan verification, 1)
		go verifyInto(joiner, service, context.Background(), issued.Key)
		if r := <-first; !isUnavailable(r.err) {
			t.Errorf("the first caller, out of time, got key %d, %v; want the database unavailable", r.identity.KeyID, r.err)
		}
		time.Sleep(time.Second) // in the bubble: no real time passes
		gated.open()
		if r := <-joiner; r.err != nil || r.identity.KeyID != issued.KeyID {
			t.Errorf("the caller that joined got key %d, %v; want key %d", r.identity.KeyID, r.err, issued.KeyID)
		}
		if calls := gated.calls.Load(); calls != 1 {
			t.Errorf("%d lookups, want the one shared", calls)
		}
	})
}

// TestASharedLookupEndsAfterTheContractsBound: a lookup whose callers set
// no deadline still ends when the contract's 5 s bound of any wait on
// the database has passed.
func TestASharedLookupEndsAfterTheContractsBound(t *testing.T) {
	issued, gated, service := gatedService(t, false)
	synctest.Test(t, func(t *testing.T) {
		gated.close()
		began := time.Now()
		r := make(chan verification, 1)
		go verifyInto(r, service, context.Background(), issued.Key)
		if got := <-r; !isUnavailable(got.err) {
			t.Errorf("a lookup the database never answered gave key %d, %v; want the database unavailable", got.identity.KeyID, got.err)
		}
		if waited := time.Since(began); waited != 5*time.Second {
			t.Errorf("the lookup ended after %s, want 5s", waited)
		}
	})
}

// TestAVerificationWithNoTimeLeftStartsNoLookup: a caller whose context
// has ended is told the database did not answer in its time, and starts
// no lookup that callers with time left could join and fail with.
func TestAVerificationWithNoTimeLeftStartsNoLookup(t *testing.T) {
	issued, gated, service := gatedService(t, false)
	synctest.Test(t, func(t *testing.T) {
		gated.close()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := service.VerifyAt(ctx, issued.Key, testStart); !isUnavailable(err) {
			t.Errorf("a caller with no time left got %v, want the database unavailable", err)
		}
		synctest.Wait()
		if calls := gated.calls.Load(); calls != 0 {
			t.Errorf("%d lookups began for a caller with no time left", calls)
		}
		gated.open()
	})
}

// verification is what VerifyAt answered.
type verification struct {
	identity keys.Identity
	err      error
}

func verifyInto(results chan<- verification, service *keys.Service, ctx context.Context, key string) {
	identity, err := service.VerifyAt(ctx, key, testStart)
	results <- verification{identity, err}
}

func isUnavailable(err error) bool {
	var unavailable *models.UnavailableError
	return errors.As(err, &unavailable)
}

// gatedService issues a key for developer "300" and returns it with a
// service whose key lookups go through a gatedLookups (reading the row
// before waiting when readFirst).
func gatedService(t *testing.T, readFirst bool) (keys.Issued, *gatedLookups, *keys.Service) {
	t.Helper()
	db := storetest.Open(t, store.DialectSQLite)
	clock := models.NewManualClock(testStart)
	issued := issue(t, newService(t, db, clock), "300")
	gated := &gatedLookups{Store: db, readFirst: readFirst}
	service, err := keys.NewService(gated, keys.Config{Secret: testSecret, Clock: clock, CacheTTL: testTTL})
	if err != nil {
		t.Fatal(err)
	}
	return issued, gated, service
}

// gatedLookups is a store whose key lookups, while its gate is closed,
// wait until it opens (after reading the row when readFirst, a read
// whose answer is still on its way) or their context ends; it counts
// them. The gate is made in the test's bubble (close), so that a lookup
// waiting at it counts as blocked for synctest.Wait.
type gatedLookups struct {
	*store.Store
	readFirst bool
	gate      chan struct{}
	calls     atomic.Int64
}

// close closes the gate; open lets every lookup through.
func (g *gatedLookups) close() { g.gate = make(chan struct{}) }
func (g *gatedLookups) open()  { close(g.gate) }

func (g *gatedLookups) KeyStandingByDigest(ctx context.Context, digest []byte) (models.KeyStanding, bool, error) {
	g.calls.Add(1)
	var (
		standing models.KeyStanding
		found    bool
		err      error
	)
	if g.readFirst {
		standing, found, err = g.Store.KeyStandingByDigest(ctx, digest)
	}
	select {
	case <-g.gate:
	case <-ctx.Done():
		return models.KeyStanding{}, false, models.Unavailable("database", 0, ctx.Err())
	}
	if g.readFirst {
		return standing, found, err
	}
	return g.Store.KeyStandingByDigest(ctx, digest)
}
