package scheduler_test

import (
	"context"
	"testing"

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
