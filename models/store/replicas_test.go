package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestReplicaHeartbeat: a beat counts the replicas seen since liveSince,
// the beating one always included; a beat moves a replica's time on.
func TestReplicaHeartbeat(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		steps := []struct {
			id   string
			at   time.Duration
			want int
		}{
			{"a", 0, 1},
			{"b", time.Second, 2},
			{"c", 2 * time.Second, 3},
			{"a", 17 * time.Second, 2}, // b (1 s) is 16 s old, c (2 s) 15 s
			{"b", 20 * time.Second, 2}, // c (2 s) is gone, a is live
			{"c", 2 * time.Hour, 1},    // the others are old, and forgotten
			{"a", 2*time.Hour + time.Second, 2},
		}
		for _, step := range steps {
			now := t0.Add(step.at)
			got, err := db.ReplicaHeartbeat(ctx, step.id, now, now.Add(-15*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if got != step.want {
				t.Errorf("beat of %s at +%s counted %d live replicas, want %d", step.id, step.at, got, step.want)
			}
		}
	})
}
