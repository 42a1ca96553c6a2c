package keys_test

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/internal/outage/outagetest"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestKeyEventSyncOutageLogsBoundedLines: while the database is
// unreachable, the key-event sync (every SyncInterval) logs the first
// failure, a reminder a minute with how long and how many attempts, and
// one line when it reads again, not a line per attempt; neither do the
// store's queries add a line of their own. Each failed attempt moves the
// clock 15 s.
func TestKeyEventSyncOutageLogsBoundedLines(t *testing.T) {
	const (
		failing   = "cannot read key events; cached key checks fall back to a 5 s lifetime"
		recovered = "reading key events again"
		step      = 15 * time.Second
	)
	clock := models.NewManualClock(testStart)
	logs := outagetest.New(failing, func() { clock.Advance(step) })
	db, proxy, _ := storetest.OpenBehindProxy(t, nil, logs.Logger(), clock)
	service, err := keys.NewService(db, keys.Config{Secret: testSecret, Clock: clock, CacheTTL: testTTL,
		SyncInterval: time.Millisecond, FlushInterval: time.Hour, Logger: logs.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); service.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })

	proxy.Refuse()
	logs.AwaitFailures(t, 40) // 10 minutes on the clock
	proxy.Accept()
	logs.AwaitLine(t, recovered)

	logs.CheckOutage(t, step, recovered)
}
