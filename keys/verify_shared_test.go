package keys_test

import (
	"context"
	"sync"
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
	db := storetest.Open(t, store.DialectSQLite)
	clock := models.NewManualClock(testStart)
	issued := issue(t, newService(t, db, clock), "300")
	gated := &gatedLookups{Store: db, entered: make(chan struct{}, 16), release: make(chan struct{})}
	service, err := keys.NewService(gated, keys.Config{Secret: testSecret, Clock: clock, CacheTTL: testTTL})
	if err != nil {
		t.Fatal(err)
	}

	firstCtx, leave := context.WithCancel(context.Background())
	const others = 7
	identities := make(chan keys.Identity, others+1)
	failures := make(chan error, others+1)
	var wg sync.WaitGroup
	verify := func(ctx context.Context) {
		defer wg.Done()
		identity, err := service.VerifyAt(ctx, issued.Key, clock.Now())
		if err != nil {
			failures <- err
			return
		}
		identities <- identity
	}
	wg.Add(1)
	go verify(firstCtx)
	<-gated.entered
	leave()
	wg.Add(others)
	for range others {
		go verify(context.Background())
	}
	// Lookups made one per caller would enter now; a shared one never
	// does. The wait only gives such lookups the time to show.
	select {
	case <-gated.entered:
		t.Error("a second lookup of the same key began while the first was under way")
	case <-time.After(300 * time.Millisecond):
	}
	close(gated.release)
	wg.Wait()
	close(identities)
	close(failures)
	for err := range failures {
		t.Errorf("a verification failed: %v", err)
	}
	for identity := range identities {
		if identity.KeyID != issued.KeyID {
			t.Errorf("verified as key %d, want %d", identity.KeyID, issued.KeyID)
		}
	}
	if calls := gated.calls.Load(); calls != 1 {
		t.Errorf("%d lookups for %d concurrent verifications, want 1", calls, others+1)
	}
}

// gatedLookups is a store whose key lookups each announce themselves on
// entered and wait for release; it counts them.
type gatedLookups struct {
	*store.Store
	entered chan struct{}
	release chan struct{}
	calls   atomic.Int64
}

func (g *gatedLookups) KeyStandingByDigest(ctx context.Context, digest []byte) (models.KeyStanding, bool, error) {
	g.calls.Add(1)
	g.entered <- struct{}{}
	select {
	case <-g.release:
	case <-ctx.Done():
		return models.KeyStanding{}, false, ctx.Err()
	}
	return g.Store.KeyStandingByDigest(ctx, digest)
}
