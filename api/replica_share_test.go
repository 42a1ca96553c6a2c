package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
)

// TestRateLimitSharedAcrossReplicas: with N API processes alive in the
// replicas table, each allows a key rate/N and burst/N (at least one);
// a replica that stops beating stops counting after ReplicaLiveWindow,
// on the injected clock, and the share grows back. Requests never touch
// the table: only Heartbeat does.
func TestRateLimitSharedAcrossReplicas(t *testing.T) {
	h := newHarness(t, harnessOptions{config: func(c *api.Config) { c.RateLimitPerSecond, c.RateLimitBurst = 4, 8 }})
	ctx := context.Background()
	key := h.issue("420000000000000001")
	beat := func(id string) {
		t.Helper()
		now := h.clock.Now()
		if _, err := h.db.ReplicaHeartbeat(ctx, id, now, now.Add(-api.ReplicaLiveWindow)); err != nil {
			t.Fatal(err)
		}
	}
	// burst counts the requests the key gets through at once, then waits
	// (on the clock) until its bucket is full again.
	burst := func() int {
		t.Helper()
		allowed := 0
		for range 20 {
			resp := h.get("/clan/2PP/tracking", "auth", key)
			resp.Body.Close()
			if resp.StatusCode == http.StatusTooManyRequests {
				break
			}
			allowed++
		}
		h.clock.Advance(time.Minute)
		return allowed
	}
	steps := []struct {
		name   string
		others []string
		want   int
	}{
		{"alone", nil, 8},
		{"two replicas", []string{"b"}, 4},
		{"four replicas", []string{"b", "c", "d"}, 2},
		{"twelve replicas: at least one token", []string{"b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}, 1},
	}
	for _, step := range steps {
		for _, id := range step.others {
			beat(id)
		}
		if err := h.server.Heartbeat(ctx, h.db); err != nil {
			t.Fatal(err)
		}
		if got := burst(); got != step.want {
			t.Errorf("%s: a key got %d requests through at once, want %d", step.name, got, step.want)
		}
	}
	// burst moved the clock a minute past every other replica's beat:
	// they are no longer alive.
	if err := h.server.Heartbeat(ctx, h.db); err != nil {
		t.Fatal(err)
	}
	if got := burst(); got != 8 {
		t.Errorf("after the others stopped beating, a key got %d requests through at once, want 8", got)
	}
	// A beat that fails keeps the share it had.
	beat("b")
	if err := h.server.Heartbeat(ctx, h.db); err != nil {
		t.Fatal(err)
	}
	failing, cancel := context.WithCancel(ctx)
	cancel()
	if err := h.server.Heartbeat(failing, h.db); err == nil {
		t.Fatal("a heartbeat that could not reach the database succeeded")
	}
	if got := burst(); got != 4 {
		t.Errorf("after a failed beat, a key got %d requests through at once, want the 4 of two replicas", got)
	}
}

// TestAReplicaStoppedCleanlyIsNoLongerCounted: when ShareRateLimit's
// context ends (a graceful stop, before a restart) the process takes
// itself out of the replicas table, so the others, and the process that
// replaces it, do not share the rate limit with it for ReplicaLiveWindow.
func TestAReplicaStoppedCleanlyIsNoLongerCounted(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	ctx := context.Background()
	if err := h.server.Heartbeat(ctx, h.db); err != nil {
		t.Fatal(err)
	}
	now := h.clock.Now()
	if live, err := h.db.ReplicaHeartbeat(ctx, "other", now, now.Add(-api.ReplicaLiveWindow)); err != nil || live != 2 {
		t.Fatalf("live replicas = %d, %v; want 2 while the server beats", live, err)
	}
	stopped, stop := context.WithCancel(ctx)
	stop()
	h.server.ShareRateLimit(stopped, h.db) // returns once it has left
	if live, err := h.db.ReplicaHeartbeat(ctx, "other", now, now.Add(-api.ReplicaLiveWindow)); err != nil || live != 1 {
		t.Fatalf("live replicas after the server stopped = %d, %v; want 1", live, err)
	}
}
