package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/internal/faultproxy"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// databaseBound is what the tests allow a request that meets a failing
// database: the contract's 5 s, with a generous margin for a loaded
// machine.
const databaseBound = 8 * time.Second

// proxiedHarness is a harness whose PostgreSQL database is reached
// through a fault proxy; params are added to the database URL. The key
// lookup budgets and the rate limit are lifted: the load is many
// requests of few keys from one address.
func proxiedHarness(t *testing.T, params map[string]string, keysConfig func(*keys.Config)) (*harness, *faultproxy.Proxy, string) {
	t.Helper()
	lift := func(c *api.Config) {
		c.KeyLookupsPerAddress, c.KeyLookupsPerSecond = 1e6, 1e6
		c.RateLimitPerSecond, c.RateLimitBurst = 1e6, 1e6
	}
	return proxiedHarnessWith(t, params, keysConfig, lift)
}

// proxiedHarnessWith is proxiedHarness with the API configured by config
// alone.
func proxiedHarnessWith(t *testing.T, params map[string]string, keysConfig func(*keys.Config), config func(*api.Config)) (*harness, *faultproxy.Proxy, string) {
	t.Helper()
	db, proxy, direct := storetest.OpenBehindProxy(t, params, nil, nil)
	return newHarness(t, harnessOptions{db: db, keys: keysConfig, config: config}), proxy, direct
}

// timedAnswer is one answer of a request, read whole.
type timedAnswer struct {
	status     int
	body       []byte
	retryAfter string
	took       time.Duration
	err        error
}

// send sends GET path with key through the real app; safe on any
// goroutine.
func send(h *harness, path, key string) timedAnswer {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("auth", key)
	start := time.Now()
	resp, err := h.server.App().Test(req, -1)
	if err != nil {
		return timedAnswer{err: err, took: time.Since(start)}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return timedAnswer{status: resp.StatusCode, body: body, retryAfter: resp.Header.Get("Retry-After"), took: time.Since(start), err: err}
}

// checkUnavailable says what is wrong with an answer that should be the
// contract's 503, or nil.
func checkUnavailable(a timedAnswer) error {
	if a.err != nil {
		return a.err
	}
	var body errorBody
	switch {
	case a.status != http.StatusServiceUnavailable:
		return fmt.Errorf("status %d, want 503: %s", a.status, a.body)
	case json.Unmarshal(a.body, &body) != nil || body.StatusText != "Temporarily unavailable" || !body.Error:
		return fmt.Errorf("503 body %s is not the contract's", a.body)
	case a.retryAfter == "":
		return errors.New("503 without Retry-After")
	case a.took > databaseBound:
		return fmt.Errorf("503 after %s, want within %s", a.took, databaseBound)
	}
	return nil
}

// TestDatabaseCutUnderLoad: while clients send requests that read the
// database (the key check of keys not yet verified, and the tracking
// status of a clan), every connection to PostgreSQL is cut again and
// again, then new connections are refused: every answer is either served
// or the contract's 503 with Retry-After, within the bound, never a 500;
// when the database is back, requests are served again.
func TestDatabaseCutUnderLoad(t *testing.T) {
	h, proxy, _ := proxiedHarness(t, nil, nil)
	const workers, perWorker = 6, 40
	fresh := make([][]string, workers)
	verified := h.issue("430000000000000000")
	for w := range fresh {
		for i := range perWorker {
			fresh[w] = append(fresh[w], h.issue(fmt.Sprintf("43%016d", w*1000+i+1)))
		}
	}
	if a := send(h, "/clan/2PP/tracking", verified); a.status >= 500 {
		t.Fatalf("before the faults: %d %s", a.status, a.body)
	}

	var (
		mu       sync.Mutex
		answers  []timedAnswer
		wg       sync.WaitGroup
		stop     = make(chan struct{})
		problems []string
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := verified
				if i%2 == 0 {
					key = fresh[w][(i/2)%perWorker]
				}
				a := send(h, "/clan/2PP/tracking", key)
				mu.Lock()
				answers = append(answers, a)
				mu.Unlock()
			}
		}()
	}
	for range 10 {
		time.Sleep(50 * time.Millisecond) // let queries be in flight
		proxy.CutAll()
	}
	proxy.Refuse()
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()

	unavailable := 0
	for _, a := range answers {
		if a.status < 500 && a.err == nil {
			continue
		}
		unavailable++
		if err := checkUnavailable(a); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		t.Fatalf("%d of %d answers were wrong, e.g. %s", len(problems), len(answers), problems[0])
	}
	if unavailable == 0 {
		t.Fatalf("none of %d answers met the failing database", len(answers))
	}
	// Refused: a new key's check and a database read answer 503 at once.
	for _, key := range []string{fresh[0][perWorker-1], verified} {
		if err := checkUnavailable(send(h, "/clan/2PP/tracking", key)); err != nil {
			t.Fatalf("with connections refused: %v", err)
		}
	}
	proxy.Accept()
	deadline := time.Now().Add(databaseBound)
	for {
		a := send(h, "/clan/2PP/tracking", verified)
		if a.status < 500 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database is back, but requests still answer %d %s", a.status, a.body)
		}
	}
	t.Logf("%d answers, %d of them 503", len(answers), unavailable)
}

// TestAKnownKeyThroughALongOutageIsAnswered503: once the database has
// been down longer than a verdict is trusted without the key-event feed,
// every request of a key verified before rechecks it, and is answered the
// contract's 503, however many there are: the budget of lookups per
// client address, which keeps made-up keys from the database, does not
// turn them into 429s. Made-up keys still meet that budget.
func TestAKnownKeyThroughALongOutageIsAnswered503(t *testing.T) {
	const perAddress = 1
	h, proxy, _ := proxiedHarnessWith(t, nil, nil, func(c *api.Config) {
		c.KeyLookupsPerAddress = perAddress
		c.RateLimitPerSecond, c.RateLimitBurst = 1e6, 1e6
	})
	verified := h.issue("450000000000000001")
	if a := send(h, "/clan/search?name=royal", verified); a.status != http.StatusOK {
		t.Fatalf("before the outage: %d %s", a.status, a.body)
	}
	proxy.Refuse()
	proxy.CutAll()
	h.clock.Advance(time.Minute)
	// Ten seconds' worth of the address's lookups, then as many again.
	for i := range 2 * 10 * perAddress {
		if err := checkUnavailable(send(h, "/clan/search?name=royal", verified)); err != nil {
			t.Fatalf("request %d of a verified key through the outage: %v", i+1, err)
		}
	}
	// The address's ten seconds of lookups untouched, made-up keys meet
	// the outage ten times, then the budget.
	for i := range 10*perAddress + 1 {
		madeUp, err := keys.NewKey()
		if err != nil {
			t.Fatal(err)
		}
		a := send(h, "/clan/search?name=royal", madeUp)
		if i < 10*perAddress {
			if err := checkUnavailable(a); err != nil {
				t.Fatalf("made-up key %d: %v", i+1, err)
			}
		} else if a.status != http.StatusTooManyRequests {
			t.Fatalf("a made-up key past the address's lookups: %d %s, want 429", a.status, a.body)
		}
	}
	proxy.Accept()
	deadline := time.Now().Add(databaseBound)
	for {
		a := send(h, "/clan/search?name=royal", verified)
		if a.status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database is back, but the verified key is answered %d %s", a.status, a.body)
		}
	}
}

// TestLockedKeyTable: with api_keys locked by another connection's open
// transaction, the check of a key not yet verified answers 503 within
// the bound (by the lock timeout, or by the request's database deadline
// when the operator set a longer lock timeout), while a key verified
// before keeps being served: the last-use flush stalls on the lock, but
// the key-event sync goes on in its own loop and keeps cached verdicts
// trusted past their 5 s.
func TestLockedKeyTable(t *testing.T) {
	cases := []struct {
		name   string
		params map[string]string
	}{
		{"lock timeout", nil},
		{"request database deadline", map[string]string{"lock_timeout": "60000", "statement_timeout": "60000"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			h, _, directURL := proxiedHarness(t, tc.params, func(c *keys.Config) { c.FlushInterval = 20 * time.Millisecond })
			verified, fresh := h.issue("440000000000000001"), h.issue("440000000000000002")
			if err := h.keys.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			runCtx, stopRun := context.WithCancel(ctx)
			ran := make(chan struct{})
			go func() { h.keys.Run(runCtx); close(ran) }()
			t.Cleanup(func() { stopRun(); <-ran })
			if a := send(h, "/clan/2PP/tracking", verified); a.status >= 500 {
				t.Fatalf("before the lock: %d %s", a.status, a.body)
			}

			lock, err := pgx.Connect(ctx, directURL)
			if err != nil {
				t.Fatal(err)
			}
			tx, err := lock.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec(ctx, `LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE`); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = tx.Rollback(ctx); _ = lock.Close(ctx) })

			// A use of the verified key, for the flush to write. The lock is
			// held until the test ends: a request that waited on it would be
			// answered 503 by the lock timeout or the database deadline.
			h.clock.Advance(2 * time.Second)
			if a := send(h, "/clan/2PP/tracking", verified); a.status >= 500 {
				t.Fatalf("verified key under the lock: %d %s", a.status, a.body)
			}
			awaitWaitingLock(t, tx)

			if err := checkUnavailable(send(h, "/clan/2PP/tracking", fresh)); err != nil {
				t.Fatalf("new key under the lock: %v", err)
			}

			// Past the 5 s a verdict is trusted without a sync: the sync
			// must still be running for the verified key to be served.
			h.clock.Advance(6 * time.Second)
			deadline := time.Now().Add(databaseBound)
			for {
				if _, err := h.keys.VerifyCached(verified, h.clock.Now()); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the key-event sync stopped while the flush was stalled: cached verdicts are no longer trusted")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if a := send(h, "/clan/2PP/tracking", verified); a.status >= 500 {
				t.Fatalf("verified key while the flush is stalled: %d %s", a.status, a.body)
			}
		})
	}
}

// awaitWaitingLock waits until some statement waits on the lock held by
// tx (the last-use flush), at most databaseBound.
func awaitWaitingLock(t *testing.T, tx pgx.Tx) {
	t.Helper()
	deadline := time.Now().Add(databaseBound)
	for {
		var waiting int
		err := tx.QueryRow(context.Background(),
			`SELECT COUNT(*) FROM pg_locks WHERE NOT granted AND relation = 'api_keys'::regclass`).Scan(&waiting)
		if err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no statement waits on the locked api_keys: the flush did not run")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
