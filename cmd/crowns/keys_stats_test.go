package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
)

func TestKeysStatsPrintsTheCurrentKeysUsage(t *testing.T) {
	c := newKeysCLI(t, "")
	// The commands' clock, not the machine's: a run across midnight UTC
	// would otherwise look for the usage on the wrong day.
	c.clock = models.NewManualClock(time.Date(2026, 11, 2, 23, 59, 0, 0, time.UTC))
	c.key(t, "issue", "--discord-user", "42", "--name", "alice")
	ctx := context.Background()
	db, err := store.Open(ctx, store.DatabaseConfig{DataDir: c.env["CROWNS_DATA_DIR"]})
	if err != nil {
		t.Fatal(err)
	}
	info, err := db.DeveloperInfo(ctx, "42")
	if err != nil {
		t.Fatal(err)
	}
	today := c.clock.Now().UTC().Truncate(time.Hour)
	err = db.AddKeyUsage(ctx, models.KeyUsageBatch{ID: "stats-test", At: today, Counts: map[models.KeyUsageCell]models.KeyUsageCount{
		{KeyID: info.CurrentKeyID, Hour: today, Route: "/clan/search"}:         {Requests: 9, RateLimited: 4},
		{KeyID: info.CurrentKeyID, Hour: today, Route: "/player/:tag/battles"}: {Requests: 2, ServerErrors: 1},
	}})
	_ = db.Close()
	if err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := c.run("stats", "--discord-user", "42")
	day := today.Format("2006-01-02")
	for _, want := range []string{"RATE-LIMITED", day, "/clan/search", "/player/:tag/battles"} {
		if code != exitOK || !strings.Contains(stdout, want) {
			t.Fatalf("stats: exit %d, want %q in stdout:\n%s%s", code, want, stdout, stderr)
		}
	}
	if strings.Contains(stdout, "no longer in use") {
		t.Errorf("the current key is said to be no longer in use:\n%s", stdout)
	}
	if strings.Index(stdout, "/clan/search") > strings.Index(stdout, "/player/:tag/battles") {
		t.Errorf("routes are not ordered by use:\n%s", stdout)
	}

	code, stdout, stderr = c.run("stats", "--discord-user", "42", "--json")
	var stats struct {
		ID           int64            `json:"id"`
		RequestCount map[string]int64 `json:"requestCount"`
		RateLimited  map[string]int64 `json:"rateLimited"`
		Routes       map[string]int64 `json:"routes"`
	}
	if code != exitOK || json.Unmarshal([]byte(stdout), &stats) != nil {
		t.Fatalf("stats --json: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if stats.ID != info.CurrentKeyID || stats.RequestCount[day] != 11 || stats.RateLimited[day] != 4 || stats.Routes["/clan/search"] != 9 {
		t.Errorf("stats --json = %+v", stats)
	}
	if strings.Contains(stderr, "no longer in use") {
		t.Errorf("stats --json says the current key is no longer in use: %q", stderr)
	}

	if code, _, stderr := c.run("stats", "--discord-user", "43"); code != exitFailure || !strings.Contains(stderr, "no developer") {
		t.Errorf("stats of an unknown developer: exit %d, stderr %q", code, stderr)
	}

	// A developer who never had a key (blacklisted before asking) has no
	// usage, and is told apart from an unknown one.
	if code, _, stderr := c.run("blacklist", "--discord-user", "44", "--reason", "spam"); code != exitOK {
		t.Fatalf("blacklist: exit %d, stderr %s", code, stderr)
	}
	if code, _, stderr := c.run("stats", "--discord-user", "44"); code != exitFailure || !strings.Contains(stderr, "developer 44 has never had a key") {
		t.Errorf("stats of a developer without keys: exit %d, stderr %q", code, stderr)
	}

	// A revoked key's usage stays what stats shows of its developer.
	if code, _, stderr := c.run("revoke", "--discord-user", "42", "--reason", "leaked"); code != exitOK {
		t.Fatalf("revoke: exit %d, stderr %s", code, stderr)
	}
	if code, stdout, stderr := c.run("stats", "--discord-user", "42"); code != exitOK || !strings.Contains(stdout, "no longer in use") || !strings.Contains(stdout, "/clan/search") {
		t.Errorf("stats after a revoke: exit %d, want the key said no longer in use, and its routes:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = c.run("stats", "--discord-user", "42", "--json")
	if code != exitOK || json.Unmarshal([]byte(stdout), &stats) != nil || stats.ID != info.CurrentKeyID || stats.RequestCount[day] != 11 {
		t.Errorf("stats after a revoke: exit %d, %+v, stderr %s", code, stats, stderr)
	}
	if !strings.Contains(stderr, "the key shown is no longer in use") || !strings.Contains(stderr, "its developer has no current key") {
		t.Errorf("stats --json after a revoke does not say on stderr that the key is no longer in use: %q", stderr)
	}
}
