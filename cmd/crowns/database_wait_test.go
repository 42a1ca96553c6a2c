package main

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestServeWaitsForADatabaseThatIsNotUpYet: a PostgreSQL server that
// refuses connections when crowns serve starts (still starting, or
// restarting) is tried again, each try logged, and serving begins once it
// answers, rather than the process exiting at once.
func TestServeWaitsForADatabaseThatIsNotUpYet(t *testing.T) {
	cfg, proxy := storetest.PostgresBehindProxy(t, nil)
	proxy.Refuse()
	env := useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir()}, cfg.URL)
	n := startServeUntil(t, env, nil, "database unreachable at start; trying again")
	proxy.Accept()
	waitForLog(t, n.stderr, "API listening")
	if code := getJSON(t, n.url("/readyz"), "", nil); code != http.StatusOK {
		t.Fatalf("readyz once the database is up: %d", code)
	}
	if strings.Contains(n.stderr.String(), "failed to initialize database") {
		t.Fatalf("GORM's own line about the failed open reached the log:\n%s", n.stderr.String())
	}
}

// TestServeStoppedWhileWaitingForTheDatabaseSaysSo: a stop signal while
// serve waits for the database ends the wait at once, and serve says it
// was stopped, exit 0, not that it could not start.
func TestServeStoppedWhileWaitingForTheDatabaseSaysSo(t *testing.T) {
	cfg, proxy := storetest.PostgresBehindProxy(t, nil)
	proxy.Refuse()
	env := useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir()}, cfg.URL)
	n := startServeUntil(t, env, nil, "database unreachable at start; trying again")
	n.stop(t)
	log := n.stderr.String()
	if !strings.Contains(log, "stopped while starting") || strings.Contains(log, "cannot start") {
		t.Fatalf("a stop during the wait for the database was not logged as a stop:\n%s", log)
	}
}

// TestOpeningGivesUpOnADatabaseThatStaysDown: the wait at start is
// bounded; the error says it gave up.
func TestOpeningGivesUpOnADatabaseThatStaysDown(t *testing.T) {
	dbConfig, proxy := storetest.PostgresBehindProxy(t, nil)
	proxy.Refuse()
	stderr := newWatchedBuffer("")
	cfg, log, ok := setup(testCLI(stderr, stderr, useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir()}, dbConfig.URL)), loadServeConfig)
	if !ok {
		t.Fatalf("configuration: %s", stderr.String())
	}
	db, _, err := openDatabaseWhenUp(context.Background(), cfg, log, models.SystemClock{}, databaseStartWait{patience: 3 * time.Second, retry: defaultDatabaseStartWait().retry})
	if err == nil {
		_ = db.Close()
		t.Fatal("opened a database behind a proxy that refuses every connection")
	}
	if !strings.Contains(err.Error(), "gave up after trying for") {
		t.Fatalf("error = %v, want it to say it gave up", err)
	}
	if !strings.Contains(stderr.String(), "database unreachable at start; trying again") {
		t.Fatalf("no try was logged:\n%s", stderr.String())
	}
}

// TestADatabaseThatDoesNotExistFailsAtOnce: waiting does not mend a
// configuration; such a start is not tried again.
func TestADatabaseThatDoesNotExistFailsAtOnce(t *testing.T) {
	u, err := url.Parse(storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/crowns_no_such_database"
	stderr := newWatchedBuffer("")
	cfg, log, ok := setup(testCLI(stderr, stderr, useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir()}, u.String())), loadServeConfig)
	if !ok {
		t.Fatalf("configuration: %s", stderr.String())
	}
	db, _, err := openDatabaseWhenUp(context.Background(), cfg, log, models.SystemClock{}, defaultDatabaseStartWait())
	if err == nil {
		_ = db.Close()
		t.Fatal("opened a database that does not exist")
	}
	if strings.Contains(stderr.String(), "trying again") {
		t.Fatalf("a missing database was tried again:\n%s", stderr.String())
	}
}

// TestAStopEndsTheWaitForTheDatabaseAtOnce: a stop while the start waits
// to try the database again ends the wait at once, however long the wait.
func TestAStopEndsTheWaitForTheDatabaseAtOnce(t *testing.T) {
	dbConfig, proxy := storetest.PostgresBehindProxy(t, nil)
	proxy.Refuse()
	stderr := newWatchedBuffer("database unreachable at start; trying again")
	cfg, log, ok := setup(testCLI(stderr, stderr, useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir()}, dbConfig.URL)), loadServeConfig)
	if !ok {
		t.Fatalf("configuration: %s", stderr.String())
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan error, 1)
	go func() {
		db, _, err := openDatabaseWhenUp(ctx, cfg, log, models.SystemClock{},
			databaseStartWait{patience: 5 * time.Minute, retry: backoff.Policy{First: time.Minute, Max: time.Minute}})
		if db != nil {
			_ = db.Close()
		}
		done <- err
	}()
	select {
	case <-stderr.seen:
	case <-time.After(30 * time.Second):
		t.Fatalf("no failed try was logged:\n%s", stderr.String())
	}
	stop()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("opened a database behind a proxy that refuses every connection")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stop did not end the wait of at least 30 s before the next try")
	}
}
