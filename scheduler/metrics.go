package scheduler

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models"
)

// slotState is what became of a clan's snapshot slot, the state label of
// the slot metric.
type slotState int

const (
	slotPlanned slotState = iota
	slotDone
	slotMissed
	slotRetried
	slotFailed
	slotStateCount
)

func (s slotState) String() string {
	switch s {
	case slotPlanned:
		return "planned"
	case slotDone:
		return "done"
	case slotMissed:
		return "missed"
	case slotRetried:
		return "retried"
	}
	return "failed"
}

// snapshotKinds are the schedules the metrics are bound for.
func snapshotKinds() [2]models.SnapshotKind {
	return [2]models.SnapshotKind{models.SnapshotFourHourly, models.SnapshotWeekly}
}

// slotMetrics are the Prometheus metrics of the snapshot scheduler, each
// label child bound once; nil records none.
type slotMetrics struct {
	// slots and lag are indexed by kind - 1 (see kindIndex).
	slots [2][slotStateCount]prometheus.Counter
	lag   [2]prometheus.Observer
}

// newSlotMetrics registers the scheduler's metrics with reg; nil when reg
// is nil.
func newSlotMetrics(reg prometheus.Registerer) (*slotMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	slots := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "crowns_scheduler_slots_total",
		Help: "Clan snapshot slots (one per tracked clan and slot) by schedule kind and what became of them: planned, done (stored, or already stored by a track request), missed (window ended, also of slots no scheduler ran through, or clan gone upstream), retried (a failed fetch to be tried again within the window), failed (a write failed or the lease was lost).",
	}, []string{"kind", "state"})
	lag := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "crowns_scheduler_snapshot_lag_seconds",
		Help:    "How long after its slot time a snapshot was stored, by schedule kind.",
		Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 2 * 3600, 4 * 3600},
	}, []string{"kind"})
	for _, c := range []prometheus.Collector{slots, lag} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	m := &slotMetrics{}
	for i, kind := range snapshotKinds() {
		for state := range slotStateCount {
			m.slots[i][state] = slots.WithLabelValues(kind.String(), state.String())
		}
		m.lag[i] = lag.WithLabelValues(kind.String())
	}
	return m, nil
}

// kindIndex is kind's index in the metrics' arrays; false for an unknown
// kind.
func kindIndex(kind models.SnapshotKind) (int, bool) {
	for i, k := range snapshotKinds() {
		if k == kind {
			return i, true
		}
	}
	return 0, false
}

// count adds n slots of kind in state.
func (m *slotMetrics) count(kind models.SnapshotKind, state slotState, n int) {
	if i, ok := kindIndex(kind); m != nil && ok && n > 0 {
		m.slots[i][state].Add(float64(n))
	}
}

// finished counts a job run that ended with o, and the lag of a stored
// snapshot, at now.
func (m *slotMetrics) finished(job models.SnapshotJob, o outcome, now time.Time) {
	i, ok := kindIndex(job.Kind)
	if m == nil || !ok {
		return
	}
	switch o {
	case outcomeStored:
		m.lag[i].Observe(now.Sub(job.Slot).Seconds())
		m.slots[i][slotDone].Inc()
	case outcomeAlreadyStored:
		m.slots[i][slotDone].Inc()
	case outcomeMissed:
		m.slots[i][slotMissed].Inc()
	case outcomeRetry:
		m.slots[i][slotRetried].Inc()
	case outcomeFailed:
		m.slots[i][slotFailed].Inc()
	}
}

// refreshMetrics count the tournament refresher's lookups by outcome; nil
// records none.
type refreshMetrics struct {
	refreshes [refreshOutcomeCount]prometheus.Counter
}

func (o refreshOutcome) String() string {
	switch o {
	case refreshDone:
		return "done"
	case refreshGone:
		return "gone"
	}
	return "failed"
}

// newRefreshMetrics registers the tournament refresher's metrics with
// reg; nil when reg is nil.
func newRefreshMetrics(reg prometheus.Registerer) (*refreshMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	refreshes := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "crowns_scheduler_tournament_refreshes_total",
		Help: "Lookups of known tournaments by the refresher, by outcome: done (stored), gone (forgotten: the game API no longer knows it), failed (lookup or write failed; tried again after its lease).",
	}, []string{"outcome"})
	if err := reg.Register(refreshes); err != nil {
		return nil, err
	}
	m := &refreshMetrics{}
	for o := range refreshOutcomeCount {
		m.refreshes[o] = refreshes.WithLabelValues(o.String())
	}
	return m, nil
}

// count adds one lookup that ended with o.
func (m *refreshMetrics) count(o refreshOutcome) {
	if m != nil {
		m.refreshes[o].Inc()
	}
}
