package keys_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestUsageOfTwoReplicasSumsUnderLoad counts requests concurrently in two
// services on one database (two processes), flushing while they count,
// and reads the sums from a third service opened afterwards (a restart).
func TestUsageOfTwoReplicasSumsUnderLoad(t *testing.T) {
	storetest.EachEngineTwins(t, func(t *testing.T, db, otherProcess *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		first, second := newService(t, db, clock), newService(t, otherProcess, clock)
		alice, bob := issue(t, first, "1"), issue(t, first, "2")
		const (
			workers  = 8
			requests = 500
			routeA   = "/clan/:tag/history"
			routeB   = "/player/:tag/battles"
		)
		statuses := []int{http.StatusOK, http.StatusTooManyRequests, http.StatusBadRequest, http.StatusServiceUnavailable}
		hours := []time.Time{testStart, testStart.Add(time.Hour)}
		var wg sync.WaitGroup
		for w := range workers {
			service := []*keys.Service{first, second}[w%2]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range requests {
					key := []int64{alice.KeyID, bob.KeyID}[i%2]
					route := []string{routeA, routeB}[(i/2)%2]
					service.Count(key, route, statuses[i%len(statuses)], hours[(i/4)%2])
					if i%100 == 99 {
						if err := service.Flush(ctx); err != nil {
							t.Error(err)
						}
					}
				}
			}()
		}
		wg.Wait()
		for _, s := range []*keys.Service{first, second} {
			if err := s.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}

		// A process started afterwards reads what both wrote.
		restarted := newService(t, otherProcess, clock)
		report, err := restarted.KeyUsage(ctx, alice.KeyID, 30, testStart)
		if err != nil {
			t.Fatal(err)
		}
		total := report.Total()
		// Alice has the even requests: statuses 200 and 400 alternate
		// (i%4 is 0 or 2) — half of her requests each.
		perKey := int64(workers * requests / 2)
		want := models.KeyUsageCount{Requests: perKey, ClientErrors: perKey / 2}
		if total != want {
			t.Errorf("alice's total = %+v, want %+v", total, want)
		}
		if len(report.Days) != 1 || !report.Days[0].Day.Equal(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("days = %+v, want one: 2025-06-01", report.Days)
		}
		if report.Routes[routeA]+report.Routes[routeB] != perKey || report.Routes[routeA] == 0 || report.Routes[routeB] == 0 {
			t.Errorf("routes = %v, want both summing to %d", report.Routes, perKey)
		}
		bobs, err := restarted.KeyUsage(ctx, bob.KeyID, 30, testStart)
		if err != nil {
			t.Fatal(err)
		}
		want = models.KeyUsageCount{Requests: perKey, RateLimited: perKey / 2, ServerErrors: perKey / 2}
		if got := bobs.Total(); got != want {
			t.Errorf("bob's total = %+v, want %+v", got, want)
		}
	})
}

// TestRunFlushesUsageOnStop counts requests, stops Run (a graceful
// shutdown) before any tick, and finds them stored.
func TestRunFlushesUsageOnStop(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(testStart)
		service, err := keys.NewService(db, keys.Config{Secret: testSecret, Clock: clock, FlushInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		alice := issue(t, service, "1")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			service.Run(ctx)
		}()
		for range 7 {
			service.Count(alice.KeyID, "/clan/search", http.StatusOK, clock.Now())
		}
		cancel()
		<-done
		report, err := service.KeyUsage(context.Background(), alice.KeyID, 1, clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if got := report.Total().Requests; got != 7 {
			t.Errorf("stored requests after stop = %d, want 7", got)
		}
	})
}

// failingUsageStore is a store whose first writes of usage fail, as an
// unreachable database does, or with err when it is set.
type failingUsageStore struct {
	keys.Store
	failures atomic.Int32
	err      error
}

func (f *failingUsageStore) AddKeyUsage(ctx context.Context, batch models.KeyUsageBatch) error {
	if f.failures.Add(-1) >= 0 {
		if f.err != nil {
			return f.err
		}
		return models.Unavailable("database", time.Second, syscall.ECONNREFUSED)
	}
	return f.Store.AddKeyUsage(ctx, batch)
}

// TestTheFlushAtStopIsTriedAgain: when the database fails as Run stops
// (a restart, a cut connection), the last flush is tried again until it
// is written, within its few seconds.
func TestTheFlushAtStopIsTriedAgain(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	failing := &failingUsageStore{Store: db}
	failing.failures.Store(3)
	clock := models.NewManualClock(testStart)
	service, err := keys.NewService(failing, keys.Config{Secret: testSecret, Clock: clock, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	alice := issue(t, service, "1")
	for range 5 {
		service.Count(alice.KeyID, "/clan/search", http.StatusOK, clock.Now())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	service.Run(ctx) // returns after the final flush
	if left := failing.failures.Load(); left >= 0 {
		t.Fatalf("the flush was tried %d times, want 4", 3-left)
	}
	report, err := service.KeyUsage(context.Background(), alice.KeyID, 1, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got := report.Total().Requests; got != 5 {
		t.Errorf("stored requests after a stop that met a failing database = %d, want 5", got)
	}
}

// capturingUsageStore fails its first writes of usage as an unreachable
// database does, then keeps the sum of what it is given instead of
// writing it.
type capturingUsageStore struct {
	keys.Store
	failures int
	written  map[models.KeyUsageCell]models.KeyUsageCount
}

func (c *capturingUsageStore) AddKeyUsage(_ context.Context, batch models.KeyUsageBatch) error {
	if c.failures > 0 {
		c.failures--
		return models.Unavailable("database", time.Second, syscall.ECONNREFUSED)
	}
	// A flush may write two batches (one that failed, then the newer
	// counts): the cells written add up.
	if c.written == nil {
		c.written = make(map[models.KeyUsageCell]models.KeyUsageCount)
	}
	for cell, count := range batch.Counts {
		sum := c.written[cell]
		sum.Add(count)
		c.written[cell] = sum
	}
	return nil
}

// TestUsageWaitingForTheDatabaseStaysBounded: while the database cannot
// take the counts they wait in memory, up to 200,000 cells (key, hour,
// route); past that the oldest hours' counts go, said in an error log,
// and the rest is written once the database is back.
func TestUsageWaitingForTheDatabaseStaysBounded(t *testing.T) {
	db := &capturingUsageStore{Store: storetest.Open(t, store.DialectSQLite), failures: 2}
	clock := models.NewManualClock(testStart)
	var logs bytes.Buffer
	service, err := keys.NewService(db, keys.Config{Secret: testSecret, Clock: clock, FlushInterval: time.Hour,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	countCells := func(n int) {
		for keyID := range n {
			service.Count(int64(keyID+1), "/clan/search", http.StatusOK, clock.Now())
		}
	}
	countCells(150_000)
	if err := service.Flush(t.Context()); err == nil {
		t.Fatal("the first flush met no failure")
	}
	clock.Advance(time.Hour)
	countCells(60_000) // 210,000 cells in all
	if err := service.Flush(t.Context()); err == nil {
		t.Fatal("the second flush met no failure")
	}
	if !strings.Contains(logs.String(), "the oldest hours' counts are dropped") || !strings.Contains(logs.String(), "requests=150000") {
		t.Errorf("log:\n%s\nwant the 150,000 requests of the oldest hour dropped", logs.String())
	}
	if err := service.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if len(db.written) != 60_000 {
		t.Fatalf("%d cells written, want the 60,000 of the last hour", len(db.written))
	}
	for cell := range db.written {
		if !cell.Hour.Equal(clock.Now().Truncate(time.Hour)) {
			t.Fatalf("a cell of %s was written, want only the last hour's", cell.Hour)
		}
	}
}

// TestTheFlushAtStopGivesUpOnAFailureThatWillNotPass: a write the
// database refuses for what it is (not for being unreachable) is not
// tried again.
func TestTheFlushAtStopGivesUpOnAFailureThatWillNotPass(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	failing := &failingUsageStore{Store: db, err: errors.New("a statement the database refuses")}
	failing.failures.Store(100)
	var logged bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logged, nil))
	service, err := keys.NewService(failing, keys.Config{Secret: testSecret, Clock: models.NewManualClock(testStart), FlushInterval: time.Hour, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	alice := issue(t, service, "1")
	bob := issue(t, service, "2")
	service.Count(alice.KeyID, "/clan/search", http.StatusOK, testStart)
	service.Count(alice.KeyID, "/player/:tag/battles", http.StatusOK, testStart)
	service.Count(bob.KeyID, "/clan/search", http.StatusOK, testStart)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	service.Run(ctx)
	if tries := 100 - failing.failures.Load(); tries != 1 {
		t.Fatalf("a failure that will not pass was tried %d times, want 1", tries)
	}
	if line := logged.String(); !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "write the request counts and last-use times") {
		t.Fatalf("the loss is not logged as an error naming what is lost:\n%s", line)
	}
	if line := logged.String(); !strings.Contains(line, "lostRequests=3") || !strings.Contains(line, "lostKeys=2") {
		t.Fatalf("the loss is not logged with how much is lost (3 requests of 2 keys):\n%s", line)
	}
}

// TestOldUsageIsDeleted keeps 30 days of usage.
func TestOldUsageIsDeleted(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		alice := issue(t, service, "1")
		service.Count(alice.KeyID, "/clan/search", http.StatusOK, testStart.Add(-31*24*time.Hour))
		service.Count(alice.KeyID, "/clan/search", http.StatusOK, testStart.Add(-29*24*time.Hour))
		if err := service.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := db.DeleteKeyUsageBefore(ctx, testStart.Add(-models.KeyUsageRetention)); err != nil {
			t.Fatal(err)
		}
		report, err := service.KeyUsage(ctx, alice.KeyID, 60, testStart)
		if err != nil {
			t.Fatal(err)
		}
		if got := report.Total().Requests; got != 1 {
			t.Errorf("requests kept = %d, want 1 (the 29-day-old one)", got)
		}
	})
}

// TestUsageIsCountedPerHourRouteAndStatusClass: each request is counted
// in the cell of its key, UTC hour and route, as rate-limited (429), a
// client error (other 4xx) or a server error (5xx); counts kept after a
// failed flush add up with those made before the next one.
func TestUsageIsCountedPerHourRouteAndStatusClass(t *testing.T) {
	db := &capturingUsageStore{Store: storetest.Open(t, store.DialectSQLite), failures: 1}
	clock := models.NewManualClock(testStart)
	service, err := keys.NewService(db, keys.Config{Secret: testSecret, Clock: clock, FlushInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	alice := issue(t, service, "1")
	const history, battles = "/clan/:tag/history", "/player/:tag/battles"
	for _, request := range []struct {
		route  string
		status int
		after  time.Duration
	}{
		{history, http.StatusOK, 0},
		{history, http.StatusNotModified, 20 * time.Minute},
		{history, http.StatusBadRequest, 30 * time.Minute},
		{history, http.StatusExpectationFailed, 40 * time.Minute},
		{history, http.StatusTooManyRequests, 45 * time.Minute},
		{history, http.StatusInternalServerError, 50 * time.Minute},
		{history, http.StatusServiceUnavailable, time.Hour - time.Second},
		{battles, http.StatusOK, 10 * time.Minute},
		{history, http.StatusOK, time.Hour},
	} {
		service.Count(alice.KeyID, request.route, request.status, testStart.Add(request.after))
	}
	if err := service.Flush(t.Context()); err == nil {
		t.Fatal("the first flush met no failure")
	}
	service.Count(alice.KeyID, history, http.StatusInternalServerError, testStart.Add(15*time.Minute))
	if err := service.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	cell := func(hour time.Time, route string) string { return hour.UTC().Format(time.RFC3339) + " " + route }
	want := map[string]models.KeyUsageCount{
		cell(testStart, history):                {Requests: 8, RateLimited: 1, ClientErrors: 2, ServerErrors: 3},
		cell(testStart, battles):                {Requests: 1},
		cell(testStart.Add(time.Hour), history): {Requests: 1},
	}
	got := map[string]models.KeyUsageCount{}
	for c, count := range db.written {
		if c.KeyID != alice.KeyID {
			t.Errorf("a cell of key %d, want only alice's %d", c.KeyID, alice.KeyID)
		}
		got[cell(c.Hour, c.Route)] = count
	}
	if !maps.Equal(got, want) {
		t.Errorf("cells written:\n%v\nwant\n%v", got, want)
	}
}
