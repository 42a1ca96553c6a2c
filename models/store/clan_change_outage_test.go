package store_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/internal/faultproxy"
	"github.com/crownsdev/crowns/internal/outage/outagetest"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestClanChangesSeenSoonAfterAnOutage: the listener of a process whose
// connection to PostgreSQL broke, and whose reconnections were refused
// long enough for its backoff to reach its cap, waits at most a second
// between tries (the listener's promise), so it hears again soon after the
// database comes back (it announces a change of all clans then), and
// hears the next change of another process. The waits are read from the
// listener's own failure lines, not measured.
func TestClanChangesSeenSoonAfterAnOutage(t *testing.T) {
	const (
		failing = "clan change listener disconnected; reconnecting"
		// capped is the try after which the listener's backoff, doubling
		// from 100 ms, has reached its cap.
		capped  = 5
		most    = time.Second
		atLeast = most / 2 // the jitter keeps a wait in the upper half
	)
	waits := &retryWaits{failing: failing, logged: make(chan time.Duration, 64)}
	proxy, writer, changes := listeningBehindProxy(t, slog.New(waits))

	proxy.Refuse()
	var last time.Duration
	for try := 1; try <= capped; try++ {
		select {
		case last = <-waits.logged:
		case <-time.After(storetest.ChangeDeadline):
			t.Fatalf("the listener logged %d failed reconnections within %s, want %d", try-1, storetest.ChangeDeadline, capped)
		}
		if last > most {
			t.Fatalf("after failed try %d the listener waits %s before the next, want at most %s", try, last, most)
		}
	}
	if last < atLeast {
		t.Fatalf("after %d failed tries the listener waits %s, want its backoff at its cap (%s to %s)", capped, last, atLeast, most)
	}
	changes.take()
	proxy.Accept()
	changes.await(t, "announcement of the reconnection", isAll)
	trackFixture(t, writer, "9QQQ", trackedAt)
	changes.await(t, "change of 9QQQ after the outage", isTag("9QQQ"))
}

// listeningBehindProxy opens a store behind a fault proxy, logging to
// logger (nil: nowhere), that listens for clan changes, and a second
// store on the same database, directly, to write changes with; it returns
// the proxy, the writer and the listener's changes once the listener made
// its first announcement.
func listeningBehindProxy(t *testing.T, logger *slog.Logger) (*faultproxy.Proxy, *store.Store, *changeRecorder) {
	t.Helper()
	reader, proxy, direct := storetest.OpenBehindProxy(t, nil, logger, nil)
	writer, err := store.Open(context.Background(), store.DatabaseConfig{URL: direct, DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = writer.Close() })
	changes := recordChanges(t, reader)
	storetest.ListenForClanChanges(t, reader)
	changes.await(t, "first announcement of the listener", isAll)
	return proxy, writer, changes
}

// retryWaits is a slog handler that passes on the retryIn of every line
// whose message is failing (those beyond what logged holds are dropped).
type retryWaits struct {
	failing string
	logged  chan time.Duration
}

func (r *retryWaits) Enabled(context.Context, slog.Level) bool { return true }

func (r *retryWaits) Handle(_ context.Context, record slog.Record) error {
	if record.Message != r.failing {
		return nil
	}
	record.Attrs(func(a slog.Attr) bool {
		if a.Key == "retryIn" {
			select {
			case r.logged <- a.Value.Duration():
			default:
			}
			return false
		}
		return true
	})
	return nil
}

func (r *retryWaits) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *retryWaits) WithGroup(string) slog.Handler      { return r }

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

// TestAListenerWhoseConnectionFallsSilentListensAgain: when the network
// path of the listener's connection dies without a reset (a failover, a
// firewall or NAT that forgot the connection), no error ever reaches it
// and the notifications sent meanwhile are lost. The listener finds out by
// itself, within a bound, that its connection no longer answers, and
// listens again on a new one: it announces a change of all clans then,
// and hears the next change of another process.
func TestAListenerWhoseConnectionFallsSilentListensAgain(t *testing.T) {
	proxy, writer, changes := listeningBehindProxy(t, nil)

	proxy.Silence()
	trackFixture(t, writer, "9QQQ", trackedAt) // its notification is lost
	changes.await(t, "announcement of a new connection after the old one fell silent", isAll)
	trackFixture(t, writer, "9CCC", trackedAt)
	changes.await(t, "change of 9CCC after the listener listened again", isTag("9CCC"))
}
