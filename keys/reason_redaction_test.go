package keys_test

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestAReasonHoldingAKeyIsKeptWithoutIt: the reason a moderator or an
// operator gives to a revocation, a disabling or a blacklisting ("it
// leaked: crw_…", pasted from where it leaked) is stored, logged and
// posted to the log channel: a key in it is redacted, the rest of the
// reason kept, as in the place of a leak report.
func TestAReasonHoldingAKeyIsKeptWithoutIt(t *testing.T) {
	moves := []struct {
		name string
		move func(s *keys.Service, user, reason string) error
	}{
		{"revoke", func(s *keys.Service, user, reason string) error {
			return s.Revoke(context.Background(), user, "cli", reason)
		}},
		{"disable", func(s *keys.Service, user, reason string) error {
			return s.Disable(context.Background(), user, "cli", reason)
		}},
		{"blacklist", func(s *keys.Service, user, reason string) error {
			return s.Blacklist(context.Background(), user, reason, "cli")
		}},
	}
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		var logs bytes.Buffer
		service, err := keys.NewService(db, keys.Config{Secret: testSecret, Clock: models.NewManualClock(testStart), CacheTTL: testTTL,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range moves {
			user := strconv.Itoa(400 + i)
			key := issue(t, service, user).Key
			random := key[len(keys.Prefix) : len(keys.Prefix)+keys.RandomLength]
			if err := m.move(service, user, "it leaked: "+key+" (in a gist)"); err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
			events := keyEvents(t, service)
			last := events[len(events)-1]
			if want := "it leaked: crw_[redacted] (in a gist)"; last.Reason != want {
				t.Errorf("%s: the event's reason is %q, want %q", m.name, last.Reason, want)
			}
			info, err := service.Info(context.Background(), user)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(info.BlacklistReason, random) {
				t.Errorf("%s: the blacklisting's reason is %q: it holds the key", m.name, info.BlacklistReason)
			}
			if strings.Contains(logs.String(), random) {
				t.Errorf("%s: the key was logged:\n%s", m.name, logs.String())
			}
			var stored int64
			for _, table := range []string{"api_keys", "key_events", "developers"} {
				var n int64
				if err := storetest.SQL(t, db).Table(table).Where(reasonColumn(table)+" LIKE ?", "%"+random+"%").Count(&n).Error; err != nil {
					t.Fatalf("%s: read %s: %v", m.name, table, err)
				}
				stored += n
			}
			if stored != 0 {
				t.Errorf("%s: the key is stored in %d reason(s)", m.name, stored)
			}
		}
	})
}

// reasonColumn names the column of a table where a reason is stored.
func reasonColumn(table string) string {
	switch table {
	case "api_keys":
		return "state_reason"
	case "developers":
		return "blacklist_reason"
	}
	return "reason"
}
