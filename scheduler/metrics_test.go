package scheduler_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/internal/metricstest"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
)

func TestSlotMetricsCountPlannedDoneMissedAndLag(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 2)
		e.trackAll(t)
		reg := prometheus.NewRegistry()
		cfg := testConfig(e.clock, "replica-m")
		cfg.Metrics = reg
		sched, err := scheduler.New(e.clans, e.world.source, cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The 12:00 slot is planned, then the process goes down until
		// 13:10 two days later: both clans miss that slot and the current
		// one (12:00 on March 12) is planned and stored 70 minutes late.
		e.clock.Set(at("2026-03-10T12:00:00Z"))
		if _, err := e.clans.PlanSnapshotJobs(context.Background(), models.SnapshotFourHourly, e.clock.Now(), e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		e.clock.Set(at("2026-03-12T13:10:00Z"))
		if _, err := sched.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
		families := metricstest.Gather(t, reg)
		for _, tt := range []struct {
			kind, state string
			want        float64
		}{
			{"4-hourly", "planned", 2},
			{"4-hourly", "done", 2},
			{"4-hourly", "missed", 2},
			{"4-hourly", "retried", 0},
			{"4-hourly", "failed", 0},
			{"weekly", "planned", 0},
		} {
			labels := map[string]string{"kind": tt.kind, "state": tt.state}
			if got := families.Value("crowns_scheduler_slots_total", labels); got != tt.want {
				t.Errorf("crowns_scheduler_slots_total%v = %v, want %v", labels, got, tt.want)
			}
		}
		lag := families["crowns_scheduler_snapshot_lag_seconds"]
		for _, m := range lag.GetMetric() {
			h := m.GetHistogram()
			kind := m.GetLabel()[0].GetValue()
			wantCount, wantSum := uint64(0), 0.0
			if kind == "4-hourly" {
				wantCount, wantSum = 2, 2*70*60
			}
			if h.GetSampleCount() != wantCount || h.GetSampleSum() != wantSum {
				t.Errorf("crowns_scheduler_snapshot_lag_seconds{kind=%q}: %d snapshots, %vs in all; want %d, %vs", kind, h.GetSampleCount(), h.GetSampleSum(), wantCount, wantSum)
			}
		}
		if len(lag.GetMetric()) != 2 {
			t.Errorf("lag series: %d, want one per kind", len(lag.GetMetric()))
		}
	})
}

// TestAFetchThatFailsAsTheWindowEndsIsCountedMissedNotRetried: a fetch
// that fails half a minute before the window ends is not tried again (the
// shortest backoff, 30 s, reaches the window's end): it is counted neither
// as retried in the tick's report nor in crowns_scheduler_slots_total,
// only as missed once the window has ended.
func TestAFetchThatFailsAsTheWindowEndsIsCountedMissedNotRetried(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		e := newEnv(t, db, 1)
		e.trackAll(t)
		reg := prometheus.NewRegistry()
		cfg := testConfig(e.clock, "replica-m") // BackoffMin 1 minute: a first retry waits 30–60 s
		cfg.Metrics = reg
		sched, err := scheduler.New(e.clans, e.world.source, cfg)
		if err != nil {
			t.Fatal(err)
		}
		e.world.failTag(e.world.trackable[0], true)
		deadline := at("2026-03-10T16:00:00Z") // the end of the 12:00 slot's window
		e.clock.Set(deadline.Add(-30 * time.Second))
		report, err := sched.Tick(context.Background())
		if err != nil || report.Planned != 1 || report.Retried != 0 {
			t.Errorf("tick at 15:59:30 = %+v, %v; want the 12:00 slot planned and its failed fetch not counted as retried", report, err)
		}
		e.world.failTag(e.world.trackable[0], false)
		e.clock.Set(deadline)
		if report, err := sched.Tick(context.Background()); err != nil || report.Missed != 1 || report.Stored != 1 {
			t.Fatalf("tick at 16:00 = %+v, %v; want the 12:00 slot missed and the 16:00 one stored", report, err)
		}
		families := metricstest.Gather(t, reg)
		for state, want := range map[string]float64{"planned": 2, "done": 1, "retried": 0, "missed": 1} {
			labels := map[string]string{"kind": "4-hourly", "state": state}
			if got := families.Value("crowns_scheduler_slots_total", labels); got != want {
				t.Errorf("crowns_scheduler_slots_total%v = %v, want %v", labels, got, want)
			}
		}
	})
}
