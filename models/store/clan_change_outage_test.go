package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/internal/outage/outagetest"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestClanChangesSeenSoonAfterAnOutage: the listener of a process whose
// connection to PostgreSQL broke, and whose reconnections were refused
// long enough for its backoff to reach its cap, hears again within 2 s of
// the database coming back (it announces a change of all clans then), and
// hears the next change of another process.
func TestClanChangesSeenSoonAfterAnOutage(t *testing.T) {
	ctx := context.Background()
	cfg, proxy := storetest.PostgresBehindProxy(t, nil)
	reader, err := store.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reader.Close() })
	if _, err := reader.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	writerCfg := cfg
	writerCfg.URL = storetest.Unproxied(t, cfg.URL, proxy.Target())
	writer, err := store.Open(ctx, writerCfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = writer.Close() })

	changes := recordChanges(t, reader)
	storetest.ListenForClanChanges(t, reader)
	changes.await(t, "first announcement of the listener", isAll)

	// An outage of 2 s: the reconnections fail, their backoff doubles
	// from 100 ms to its 1 s cap.
	proxy.Refuse()
	time.Sleep(2 * time.Second)
	changes.take()
	proxy.Accept()
	back := time.Now()
	changes.await(t, "announcement of the reconnection", isAll)
	if waited := time.Since(back); waited > 2*time.Second {
		t.Fatalf("the listener heard again %s after the database came back, want within 2 s", waited)
	}
	trackFixture(t, writer, "9QQQ", trackedAt)
	changes.await(t, "change of 9QQQ after the outage", isTag("9QQQ"))
}

// TestListenerOutageLogsBoundedLines: while the listener cannot
// reconnect, it logs the first failure, a reminder a minute with how
// long and how many attempts, and one line when it listens again, not a
// line per attempt. Each failed attempt moves the store's clock 15 s.
func TestListenerOutageLogsBoundedLines(t *testing.T) {
	const (
		failing   = "clan change listener disconnected; reconnecting"
		recovered = "clan change listener listening again"
		step      = 15 * time.Second
	)
	clock := models.NewManualClock(trackedAt)
	logs := outagetest.New(failing, func() { clock.Advance(step) })
	listener, proxy, _ := storetest.OpenBehindProxy(t, nil, logs.Logger(), clock)
	listener.SetListenRetry(backoff.Policy{First: time.Millisecond})
	changes := recordChanges(t, listener)
	storetest.ListenForClanChanges(t, listener)
	changes.await(t, "first announcement of the listener", isAll)

	proxy.Refuse()
	logs.AwaitFailures(t, 40) // 10 minutes on the store's clock
	proxy.Accept()
	logs.AwaitLine(t, recovered)

	logs.CheckOutage(t, step, recovered)
}
