package keys_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// testSecret is the secret of every test service unless a test needs two.
var testSecret = bytes.Repeat([]byte("s"), 32)

// testStart is where every test clock starts.
var testStart = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)

const testTTL = 5 * time.Second

// newService builds a service over db (a *store.Store, or a fake wrapping
// one) on clock.
func newService(t testing.TB, db keys.Store, clock models.Clock) *keys.Service {
	t.Helper()
	service, err := keys.NewService(db, keys.Config{Secret: testSecret, Clock: clock, CacheTTL: testTTL})
	if err != nil {
		t.Fatal(err)
	}
	return service
}

func issue(t testing.TB, service *keys.Service, discordUserID string) keys.Issued {
	t.Helper()
	issued, err := service.IssueOrRemind(context.Background(), keys.Developer{DiscordUserID: discordUserID, DisplayName: "dev " + discordUserID}, "discord:"+discordUserID)
	if err != nil {
		t.Fatalf("issue key for %s: %v", discordUserID, err)
	}
	return issued
}

// expectVerify checks Verify's answer for raw: the error (nil for a valid
// key) and, when valid, the owner.
func expectVerify(t *testing.T, service *keys.Service, raw string, wantErr error, wantOwner string) {
	t.Helper()
	identity, err := service.Verify(context.Background(), raw)
	if !errors.Is(err, wantErr) || (wantErr == nil && err != nil) {
		t.Fatalf("Verify = %v, want %v", err, wantErr)
	}
	if wantErr == nil && (identity.DiscordUserID != wantOwner || identity.KeyID == 0 || identity.DeveloperID == 0) {
		t.Fatalf("Verify identity = %+v, want owner %s", identity, wantOwner)
	}
}

// statementCounter counts the statements a store sends from its creation
// on.
type statementCounter struct {
	db   *store.Store
	base int64
}

// countStatements counts the statements the store runs from now on.
func countStatements(t testing.TB, db *store.Store) *statementCounter {
	t.Helper()
	return &statementCounter{db: db, base: db.QueryCount()}
}

// Load is the number of statements since the counter was made or reset.
func (c *statementCounter) Load() int64 { return c.db.QueryCount() - c.base }

// Reset starts counting again from now.
func (c *statementCounter) Reset() { c.base = c.db.QueryCount() }

// keyEvents reads every recorded event.
func keyEvents(t testing.TB, service *keys.Service) []models.KeyEvent {
	t.Helper()
	events, err := service.Events(context.Background(), 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return events
}
