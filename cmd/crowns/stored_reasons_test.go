package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// reasonsRewritten is the line that says how many stored reasons were
// redacted.
const reasonsRewritten = `msg="redacted the keys in stored reasons" rewritten=`

// openEnvDatabase opens the database env points at, as another process.
func openEnvDatabase(t *testing.T, env map[string]string) *store.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := store.Open(ctx, store.DatabaseConfig{URL: env["CROWNS_DATABASE_URL"], DataDir: env["CROWNS_DATA_DIR"]})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// storeKeyInReasons revokes developer 42's key, issued with the CLI, and
// writes the key into the revocation's reasons (the key's state and the
// event; the issue's event keeps its empty reason), as releases before
// reasons were redacted stored a reason that quoted it. It returns the
// key.
func storeKeyInReasons(t *testing.T, env map[string]string) string {
	t.Helper()
	key := issueKeyWithCLI(t, env)
	stdout, stderr := newWatchedBuffer(""), newWatchedBuffer("")
	if code := run(context.Background(), []string{"keys", "revoke", "--discord-user", "42", "--reason", "to be replaced"}, testCLI(stdout, stderr, env)); code != exitOK {
		t.Fatalf("keys revoke: exit %d: %s", code, stderr.String())
	}
	conn := storetest.SQL(t, openEnvDatabase(t, env)).WithContext(context.Background())
	reason := "it leaked: " + key
	for _, table := range []string{"api_keys", "key_events"} {
		column := map[string]string{"api_keys": "state_reason", "key_events": "reason"}[table]
		if err := conn.Table(table).Where(column+" = ?", "to be replaced").Update(column, reason).Error; err != nil {
			t.Fatal(err)
		}
	}
	return key
}

// expectKeyNotInReasons checks that the revocation's reasons of
// storeKeyInReasons are redacted.
func expectKeyNotInReasons(t *testing.T, env map[string]string, key string) {
	t.Helper()
	conn := storetest.SQL(t, openEnvDatabase(t, env)).WithContext(context.Background())
	var reasons []string
	if err := conn.Raw(`SELECT state_reason FROM api_keys UNION ALL SELECT reason FROM key_events WHERE action = 'revoked'`).Scan(&reasons).Error; err != nil {
		t.Fatal(err)
	}
	if len(reasons) != 2 {
		t.Fatalf("reasons %q: want the key's and its revocation's", reasons)
	}
	for _, reason := range reasons {
		if reason != "it leaked: crw_[redacted]" || strings.Contains(reason, key[len(keys.Prefix):]) {
			t.Errorf("a stored reason is %q, want %q", reason, "it leaked: crw_[redacted]")
		}
	}
}

// TestServeRedactsKeysInStoredReasons: crowns serve rewrites, at start,
// the reasons an earlier release stored with a key in them, and says how
// many.
func TestServeRedactsKeysInStoredReasons(t *testing.T) {
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			env := useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_ROLES": "scheduler"}, engine.databaseURL(t))
			key := storeKeyInReasons(t, env)
			n := startServeUntil(t, env, nil, reasonsRewritten)
			n.stop(t)
			if line := lineContaining(n.stderr.String(), reasonsRewritten); !strings.HasSuffix(line, reasonsRewritten+"2") {
				t.Errorf("the rewrite was logged as %q, want 2 rewritten", line)
			}
			if strings.Contains(n.stderr.String(), key) {
				t.Errorf("the key was logged:\n%s", n.stderr.String())
			}
			expectKeyNotInReasons(t, env, key)
		})
	}
}

// TestMigrateRedactsKeysInStoredReasons: crowns migrate does the rewrite
// too, and run again has nothing left to rewrite.
func TestMigrateRedactsKeysInStoredReasons(t *testing.T) {
	for _, engine := range commandEngines() {
		t.Run(engine.name, func(t *testing.T) {
			env := useDatabase(map[string]string{"CROWNS_DATA_DIR": t.TempDir()}, engine.databaseURL(t))
			key := storeKeyInReasons(t, env)
			for i, want := range []string{reasonsRewritten + "2", ""} {
				var stdout, stderr bytes.Buffer
				if code := run(context.Background(), []string{"migrate"}, testCLI(&stdout, &stderr, env)); code != exitOK {
					t.Fatalf("migrate: exit %d: %s", code, stderr.String())
				}
				if said := lineContaining(stderr.String(), reasonsRewritten); !strings.HasSuffix(said, want) || (want == "") != (said == "") {
					t.Errorf("migrate run %d said %q about stored reasons, want %q:\n%s", i+1, said, want, stderr.String())
				}
				expectKeyNotInReasons(t, env, key)
			}
		})
	}
}

// TestRedactingStoredReasonsWaitsForTheDatabase: a database that cannot
// be reached when the rewrite starts is tried again, said once, and the
// rewrite is done when it answers.
func TestRedactingStoredReasonsWaitsForTheDatabase(t *testing.T) {
	db, proxy, _ := storetest.OpenBehindProxy(t, nil, nil, nil)
	clock := models.NewManualClock(time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC))
	service, err := keys.NewService(db, keys.Config{Secret: bytes.Repeat([]byte{9}, 32), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	issued, err := service.IssueOrRemind(context.Background(), keys.Developer{DiscordUserID: "42"}, "cli")
	if err != nil {
		t.Fatal(err)
	}
	if err := storetest.SQL(t, db).Exec(`UPDATE api_keys SET state_reason = ?`, "it leaked: "+issued.Key).Error; err != nil {
		t.Fatal(err)
	}

	proxy.Refuse()
	logs := newWatchedBuffer("cannot redact the keys in stored reasons: trying again")
	done := make(chan bool, 1)
	go func() {
		done <- redactStoredReasons(context.Background(), service, slog.New(slog.NewTextHandler(logs, nil)), clock,
			backoff.Policy{First: 20 * time.Millisecond, Max: 100 * time.Millisecond})
	}()
	select {
	case <-logs.seen:
	case <-done:
		t.Fatalf("the rewrite ended while the database was unreachable:\n%s", logs.String())
	case <-time.After(time.Minute):
		t.Fatalf("the failing rewrite was not logged:\n%s", logs.String())
	}
	proxy.Accept()
	select {
	case ok := <-done:
		if !ok {
			t.Fatalf("the rewrite was not done once the database answered:\n%s", logs.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("the rewrite did not end once the database answered:\n%s", logs.String())
	}
	for _, line := range []string{reasonsRewritten + "1", "redacting the keys in stored reasons again"} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("the log does not say %q:\n%s", line, logs.String())
		}
	}
	var reason string
	if err := storetest.SQL(t, db).Raw(`SELECT state_reason FROM api_keys`).Scan(&reason).Error; err != nil {
		t.Fatal(err)
	}
	if reason != "it leaked: crw_[redacted]" {
		t.Errorf("the stored reason is %q, want it redacted", reason)
	}
}

// TestRedactingStoredReasonsGivesUpOnAFailureWaitingCannotMend: a failure
// other than an unreachable database is logged as an error at once, and
// the process goes on.
func TestRedactingStoredReasonsGivesUpOnAFailureWaitingCannotMend(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC))
		service, err := keys.NewService(db, keys.Config{Secret: bytes.Repeat([]byte{9}, 32), Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		if err := storetest.SQL(t, db).Exec(`ALTER TABLE key_events RENAME TO key_events_elsewhere`).Error; err != nil {
			t.Fatal(err)
		}
		var logs bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if redactStoredReasons(ctx, service, slog.New(slog.NewTextHandler(&logs, nil)), clock, backoff.Policy{First: time.Hour}) {
			t.Fatal("the rewrite says it was done without its table")
		}
		if ctx.Err() != nil || !strings.Contains(logs.String(), `level=ERROR msg="cannot redact the keys in stored reasons: left for the next start"`) {
			t.Errorf("the failure was not logged as an error at once:\n%s", logs.String())
		}
	})
}
