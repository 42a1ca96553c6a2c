package keys_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// storedReasonCase is a reason as a release before their redaction
// stored it, and what it becomes. key is replaced by a real key.
type storedReasonCase struct {
	stored, want string
}

// storedReasonCases hold a key, part of one, the prefix alone, text
// redacted already and text without a key.
func storedReasonCases() []storedReasonCase {
	return []storedReasonCase{
		{"it leaked: {key} (in a gist)", "it leaked: crw_[redacted] (in a gist)"},
		{"reported leaked at https://gist.example/u/{key}/raw", "reported leaked at https://gist.example/u/crw_[redacted]/raw"},
		{"{key}{key}", "crw_[redacted]crw_[redacted]"},
		{"part of it: {part}, and more", "part of it: crw_[redacted], and more"},
		{"crw_", "crw_[redacted]"},
		{"said crw_[redacted] already, then {key}", "said crw_[redacted] already, then crw_[redacted]"},
		{"it leaked: crw_[redacted] (in a gist)", "it leaked: crw_[redacted] (in a gist)"},
		{"CRW_ABC is not one", "CRW_ABC is not one"},
		{"scraping", "scraping"},
		{"", ""},
	}
}

// storeOldReasons gives each case a developer with a revoked key and its
// events, and writes the case's reason, with the key filled in, into the
// key's state, every event of the developer and the developer's
// blacklisting, as releases before the redaction did. It returns the
// developers' Discord ids and the random parts of their keys.
func storeOldReasons(t *testing.T, service *keys.Service, db *store.Store, cases []storedReasonCase) (users, randoms []string) {
	t.Helper()
	ctx := context.Background()
	conn := storetest.SQL(t, db).WithContext(ctx)
	for i, c := range cases {
		user := strconv.Itoa(700 + i)
		key := issue(t, service, user).Key
		if err := service.Revoke(ctx, user, "cli", "to be replaced"); err != nil {
			t.Fatal(err)
		}
		random := key[len(keys.Prefix) : len(keys.Prefix)+keys.RandomLength]
		reason := strings.NewReplacer("{key}", key, "{part}", key[:20]).Replace(c.stored)
		var developer models.Developer
		if err := conn.Where("discord_user_id = ?", user).Take(&developer).Error; err != nil {
			t.Fatal(err)
		}
		for _, write := range []struct{ table, column string }{
			{"developers", "blacklist_reason"}, {"api_keys", "state_reason"}, {"key_events", "reason"},
		} {
			where := "developer_id = ?"
			if write.table == "developers" {
				where = "id = ?"
			}
			if err := conn.Table(write.table).Where(where, developer.ID).Update(write.column, reason).Error; err != nil {
				t.Fatal(err)
			}
		}
		users, randoms = append(users, user), append(randoms, random)
	}
	return users, randoms
}

// expectRedactedReasons checks every reason of each case's developer
// against the case's want, and that no random part of a key is stored in
// any reason.
func expectRedactedReasons(t *testing.T, db *store.Store, cases []storedReasonCase, users, randoms []string) {
	t.Helper()
	conn := storetest.SQL(t, db).WithContext(context.Background())
	for i, c := range cases {
		var developer models.Developer
		if err := conn.Where("discord_user_id = ?", users[i]).Take(&developer).Error; err != nil {
			t.Fatal(err)
		}
		var apiKeys []models.APIKey
		var events []models.KeyEvent
		if err := conn.Where("developer_id = ?", developer.ID).Find(&apiKeys).Error; err != nil {
			t.Fatal(err)
		}
		if err := conn.Where("developer_id = ?", developer.ID).Find(&events).Error; err != nil {
			t.Fatal(err)
		}
		got := []string{developer.BlacklistReason}
		for _, key := range apiKeys {
			got = append(got, key.StateReason)
		}
		for _, event := range events {
			got = append(got, event.Reason)
		}
		if len(got) != 1+1+2 {
			t.Fatalf("case %q: %d reasons, want the blacklisting's, the key's and two events'", c.stored, len(got))
		}
		for _, reason := range got {
			if reason != c.want {
				t.Errorf("case %q: a stored reason is %q, want %q", c.stored, reason, c.want)
			}
		}
	}
	for _, random := range randoms {
		for _, table := range []string{"api_keys", "key_events", "developers"} {
			var n int64
			if err := conn.Table(table).Where(reasonColumn(table)+" LIKE ?", "%"+random+"%").Count(&n).Error; err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%d reason(s) of %s still hold a key", n, table)
			}
		}
	}
}

// wantRewritten counts the rows the cases' reasons change: the
// blacklisting, the key's state and two events of each case whose reason
// is not its redacted form already.
func wantRewritten(cases []storedReasonCase) int {
	n := 0
	for _, c := range cases {
		if c.stored != c.want {
			n += 4
		}
	}
	return n
}

// TestRedactStoredReasonsRewritesKeysStoredBeforeRedaction: reasons stored
// by releases before reasons were redacted may hold a key; the rewrite
// leaves them in the form a reason is stored in now, changes no other
// reason, and a second run rewrites nothing.
func TestRedactStoredReasonsRewritesKeysStoredBeforeRedaction(t *testing.T) {
	cases := storedReasonCases()
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		service := newService(t, db, models.NewManualClock(testStart))
		users, randoms := storeOldReasons(t, service, db, cases)

		rewritten, err := service.RedactStoredReasons(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := wantRewritten(cases); rewritten != want {
			t.Errorf("rewrote %d reasons, want %d", rewritten, want)
		}
		expectRedactedReasons(t, db, cases, users, randoms)

		if again, err := service.RedactStoredReasons(ctx); err != nil || again != 0 {
			t.Errorf("a second run rewrote %d reasons (err %v), want none", again, err)
		}
		expectRedactedReasons(t, db, cases, users, randoms)
	})
}

// TestRedactStoredReasonsTogetherRewritesEachOnce: processes starting
// together on one database each run the rewrite; between them every
// reason is rewritten once.
func TestRedactStoredReasonsTogetherRewritesEachOnce(t *testing.T) {
	cases := storedReasonCases()
	storetest.EachEngineTwins(t, func(t *testing.T, db, otherProcess *store.Store) {
		clock := models.NewManualClock(testStart)
		services := []*keys.Service{newService(t, db, clock), newService(t, otherProcess, clock)}
		users, randoms := storeOldReasons(t, services[0], db, cases)

		counts := make([]int, len(services))
		errs := make([]error, len(services))
		var wg sync.WaitGroup
		for i, service := range services {
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[i], errs[i] = service.RedactStoredReasons(context.Background())
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if want := wantRewritten(cases); counts[0]+counts[1] != want {
			t.Errorf("the processes rewrote %d and %d reasons, want %d in all", counts[0], counts[1], want)
		}
		expectRedactedReasons(t, db, cases, users, randoms)
	})
}
