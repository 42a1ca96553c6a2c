package keys_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestConcurrentVerificationsOfOneKeyShareALookup: the first requests of
// a key after a start (or a known key's rechecks while the database
// fails) come together; they make one database lookup, not one each,
// and the first client going away does not fail the others.
func TestConcurrentVerificationsOfOneKeyShareALookup(t *testing.T) {
	issued, gated, service := gatedService(t, false)
	firstCtx, leave := context.WithCancel(context.Background())
	firstDone := make(chan error, 1)
	go func() {
		_, err := service.VerifyAt(firstCtx, issued.Key, testStart)
		firstDone <- err
	}()
	<-gated.entered
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
	// Lookups made one per caller would enter now; a shared one never
	// does. The wait only gives such lookups the time to show.
	select {
	case <-gated.entered:
		t.Error("a second lookup of the same key began while the first was under way")
	case <-time.After(300 * time.Millisecond):
	}
	close(gated.release)
	for range others {
		r := <-results
		if r.err != nil || r.identity.KeyID != issued.KeyID {
			t.Errorf("verified as key %d (%v), want key %d", r.identity.KeyID, r.err, issued.KeyID)
		}
	}
	if calls := gated.calls.Load(); calls != 1 {
		t.Errorf("%d lookups for %d concurrent verifications, want 1", calls, others+1)
	}
}

// TestAVerificationBegunAfterAChangeMakesItsOwnLookup: a lookup that read
// a key's row before the key was revoked may still be answering; a
// verification that begins after the revocation does not take its
// answer, but looks the key up again and finds it revoked.
func TestAVerificationBegunAfterAChangeMakesItsOwnLookup(t *testing.T) {
	issued, gated, service := gatedService(t, true)
	before := make(chan verification, 1)
	go verifyInto(before, service, context.Background(), issued.Key)
	<-gated.entered // its row is read: the key is active
	if err := service.Revoke(context.Background(), "300", "moderator", "leaked"); err != nil {
		t.Fatal(err)
	}
	after := make(chan verification, 1)
	go verifyInto(after, service, context.Background(), issued.Key)
	select {
	case <-gated.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the verification begun after the revocation made no lookup of its own")
	}
	close(gated.release)
	if r := <-after; !errors.Is(r.err, models.ErrUnknownKey) {
		t.Errorf("verification begun after the revocation: key %d, %v; want models.ErrUnknownKey", r.identity.KeyID, r.err)
	}
	<-before
}

// TestAVerificationWaitsForASharedLookupNoLongerThanItsContext: a caller
// that joins a lookup whose first caller set no deadline stops waiting
// when its own context ends, told that the database did not answer.
func TestAVerificationWaitsForASharedLookupNoLongerThanItsContext(t *testing.T) {
	issued, gated, service := gatedService(t, false)
	first := make(chan verification, 1)
	go verifyInto(first, service, context.Background(), issued.Key)
	<-gated.entered
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	waiter := make(chan verification, 1)
	go verifyInto(waiter, service, ctx, issued.Key)
	select {
	case r := <-waiter:
		if !isUnavailable(r.err) {
			t.Errorf("the waiter whose context ended got key %d, %v; want the database unavailable", r.identity.KeyID, r.err)
		}
	case <-time.After(5 * time.Second):
		t.Error("a waiter whose context ended is still waiting for the shared lookup")
	}
	close(gated.release)
	if r := <-first; r.err != nil || r.identity.KeyID != issued.KeyID {
		t.Errorf("the first caller got key %d, %v; want key %d", r.identity.KeyID, r.err, issued.KeyID)
	}
	if calls := gated.calls.Load(); calls != 1 {
		t.Errorf("%d lookups: the waiter made one of its own instead of joining", calls)
	}
}

// TestAVerificationWithNoTimeLeftStartsNoLookup: a caller whose context
// has ended is told the database did not answer in its time, and starts
// no lookup that callers with time left could join and fail with.
func TestAVerificationWithNoTimeLeftStartsNoLookup(t *testing.T) {
	issued, gated, service := gatedService(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := service.VerifyAt(ctx, issued.Key, testStart); !isUnavailable(err) {
		t.Errorf("a caller with no time left got %v, want the database unavailable", err)
	}
	// A lookup started for it would enter the store now; the wait only
	// gives one the time to show.
	select {
	case <-gated.entered:
		t.Error("a lookup began for a caller with no time left")
	case <-time.After(300 * time.Millisecond):
	}
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
	gated := &gatedLookups{Store: db, readFirst: readFirst, entered: make(chan struct{}, 16), release: make(chan struct{})}
	service, err := keys.NewService(gated, keys.Config{Secret: testSecret, Clock: clock, CacheTTL: testTTL})
	if err != nil {
		t.Fatal(err)
	}
	return issued, gated, service
}

// gatedLookups is a store whose key lookups each announce themselves on
// entered and wait for release (after reading the row when readFirst, a
// read whose answer is still on its way); it counts them.
type gatedLookups struct {
	*store.Store
	readFirst bool
	entered   chan struct{}
	release   chan struct{}
	calls     atomic.Int64
}

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
	g.entered <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
		return models.KeyStanding{}, false, ctx.Err()
	}
	if g.readFirst {
		return standing, found, err
	}
	return g.Store.KeyStandingByDigest(ctx, digest)
}
