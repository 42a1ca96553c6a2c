package keys_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sync"
	"testing"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

func TestDatabaseHoldsNoPlaintext(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		service := newService(t, db, clock)
		var plaintexts []string
		remember := func(issued keys.Issued, err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
			plaintexts = append(plaintexts, issued.Key)
		}
		dev := keys.Developer{DiscordUserID: "100", DisplayName: "alice"}
		remember(service.IssueOrRemind(ctx, dev, "discord:100"))
		remember(service.Regenerate(ctx, dev, "discord:100"))
		if err := service.Disable(ctx, "100", "bot", "left"); err != nil {
			t.Fatal(err)
		}
		remember(service.IssueOrRemind(ctx, dev, "discord:100"))
		remember(service.IssueOrRemind(ctx, keys.Developer{DiscordUserID: "200"}, "cli"))
		if err := service.Blacklist(ctx, "200", "abuse", "cli"); err != nil {
			t.Fatal(err)
		}
		expectVerify(t, service, plaintexts[2], nil, "100")
		if err := service.Flush(ctx); err != nil {
			t.Fatal(err)
		}

		cells := 0
		for _, table := range []string{"developers", "api_keys", "key_events"} {
			var rows []map[string]any
			if err := storetest.SQL(t, db).WithContext(ctx).Table(table).Find(&rows).Error; err != nil {
				t.Fatal(err)
			}
			if len(rows) == 0 {
				t.Fatalf("table %s is empty: the scan would prove nothing", table)
			}
			for _, row := range rows {
				for column, value := range row {
					cells++
					for _, raw := range plaintexts {
						if cellHolds(value, raw) {
							t.Errorf("%s.%s holds a key's plaintext (or an encoding of it)", table, column)
						}
					}
				}
			}
		}
		t.Logf("scanned %d cells for %d keys", cells, len(plaintexts))
	})
}

// cellHolds reports whether a database value contains the key's random
// part, as text, hex or base64.
func cellHolds(value any, raw string) bool {
	var cell []byte
	switch v := value.(type) {
	case []byte:
		cell = v
	case string:
		cell = []byte(v)
	default:
		cell = []byte(fmt.Sprint(v))
	}
	random := raw[len(keys.Prefix):]
	for _, needle := range []string{random, hex.EncodeToString([]byte(random)), base64.StdEncoding.EncodeToString([]byte(raw))[:40]} {
		if bytes.Contains(bytes.ToLower(cell), bytes.ToLower([]byte(needle))) {
			return true
		}
	}
	return false
}

func TestConcurrentRequestsOfOneDeveloperMakeOneKey(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(testStart)
		// Two services: two processes (bot and command line) on one database.
		services := []*keys.Service{newService(t, db, clock), newService(t, db, clock)}
		const requests = 8
		results := make([]keys.Issued, requests)
		errs := make([]error, requests)
		var wg sync.WaitGroup
		for i := range requests {
			wg.Go(func() {
				results[i], errs[i] = services[i%2].IssueOrRemind(ctx, keys.Developer{DiscordUserID: "100"}, "discord:100")
			})
		}
		wg.Wait()
		created := 0
		for i := range requests {
			if errs[i] != nil {
				t.Fatalf("request %d: %v", i, errs[i])
			}
			if results[i].Key != results[0].Key {
				t.Fatalf("request %d got another key", i)
			}
			if results[i].Created {
				created++
			}
		}
		var developers, apiKeys int64
		if err := storetest.SQL(t, db).WithContext(ctx).Model(&models.Developer{}).Count(&developers).Error; err != nil {
			t.Fatal(err)
		}
		if err := storetest.SQL(t, db).WithContext(ctx).Model(&models.APIKey{}).Count(&apiKeys).Error; err != nil {
			t.Fatal(err)
		}
		events := keyEvents(t, services[0])
		if created != 1 || developers != 1 || apiKeys != 1 || len(events) != 1 {
			t.Fatalf("%d created, %d developers, %d keys, %d events; want one of each", created, developers, apiKeys, len(events))
		}
	})
}
