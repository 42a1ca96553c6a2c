package api_test

import (
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestALookupTheDatabaseCouldNotStoreReachesTheKnownListLater: while
// another writer holds the database, a looked-up tournament is answered
// but cannot be written; once the database is free again, the background
// retry writes it, and the known list has it.
func TestALookupTheDatabaseCouldNotStoreReachesTheKnownListLater(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) {
		c.Tournaments = true
		c.DatabaseTimeout = 300 * time.Millisecond
	}})
	auth := []string{"auth", h.issue("1")}
	tag := h.world.TournamentTags()[0]
	if resp := h.get("/tournaments/known", auth...); resp.StatusCode != 200 || strings.Contains(string(readBody(t, resp)), tag) {
		t.Fatal("the tournament is known before anyone looked it up")
	}

	locked, release := make(chan error, 1), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- storetest.SQL(t, h.db).Connection(func(conn *gorm.DB) error {
			err := conn.Exec("BEGIN EXCLUSIVE").Error
			locked <- err
			if err != nil {
				return err
			}
			<-release
			return conn.Exec("COMMIT").Error
		})
	}()
	if err := <-locked; err != nil {
		t.Fatal(err)
	}
	if resp := h.get("/tournament/"+tag, auth...); resp.StatusCode != 200 {
		t.Fatalf("lookup while the database is held: %d, want the tournament all the same", resp.StatusCode)
	}
	if !strings.Contains(h.logs.String(), "could not store a looked-up tournament") {
		t.Fatalf("the failed write was not logged:\n%s", h.logs.String())
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	deadline := time.Now().Add(30 * time.Second)
	for {
		resp := h.get("/tournaments/known", auth...)
		if body := string(readBody(t, resp)); strings.Contains(body, tag) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the looked-up tournament never reached the known list:\n%s", h.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
