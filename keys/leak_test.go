package keys_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestALeakPlaceHoldingTheKeyIsKeptWithoutIt: the place a leak report
// gives (an address whose query or path holds the key it found, say) is
// kept in the revocation's reason, which is stored, logged and told to
// the log channel and the owner: the key in it is redacted, the rest of
// the place kept.
func TestALeakPlaceHoldingTheKeyIsKeptWithoutIt(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		var logs bytes.Buffer
		service, err := keys.NewService(db, keys.Config{Secret: testSecret, Clock: models.NewManualClock(testStart), CacheTTL: testTTL,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		leaked := issue(t, service, "300").Key
		random := leaked[len(keys.Prefix) : len(keys.Prefix)+keys.RandomLength]
		place := "https://paste.example/raw?k=" + leaked + "&line=3"
		if revoked, err := service.RevokeLeaked(t.Context(), leaked, place); err != nil || !revoked {
			t.Fatalf("RevokeLeaked = %v, %v", revoked, err)
		}
		events := keyEvents(t, service)
		last := events[len(events)-1]
		if last.Action != models.KeyActionRevoked || strings.Contains(last.Reason, random) {
			t.Fatalf("the revocation's reason is %q: it holds the key", last.Reason)
		}
		if want := keys.LeakReasonPrefix + "https://paste.example/raw?k=crw_[redacted]&line=3"; last.Reason != want {
			t.Fatalf("the revocation's reason is %q, want %q", last.Reason, want)
		}
		if strings.Contains(logs.String(), random) {
			t.Fatalf("the key was logged:\n%s", logs.String())
		}
		if revoked, err := service.RevokeLeaked(t.Context(), leaked, place); err != nil || !revoked {
			t.Fatalf("the same report again: RevokeLeaked = %v, %v, want the leaked key's true", revoked, err)
		}
	})
}
