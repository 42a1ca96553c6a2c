package upstream

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models"
)

// endpoint is one kind of game-API call, the endpoint label of the call
// metrics: a fixed set, never a raw path.
type endpoint int

const (
	endpointClans endpoint = iota
	endpointClan
	endpointBattlelog
	endpointTournaments
	endpointTournament
	endpointCards
	endpointLocations
	endpointCount
)

// String is the endpoint's label value.
func (e endpoint) String() string {
	switch e {
	case endpointClans:
		return "clans"
	case endpointClan:
		return "clan"
	case endpointBattlelog:
		return "battlelog"
	case endpointTournaments:
		return "tournaments"
	case endpointTournament:
		return "tournament"
	case endpointCards:
		return "cards"
	case endpointLocations:
		return "locations"
	}
	return "unknown"
}

// listEndpoint is the endpoint of a paged list path.
func listEndpoint(path string) endpoint {
	if path == "/locations" {
		return endpointLocations
	}
	return endpointCards
}

// callOutcome is how one logical call (retries included) ended, the
// outcome label of the call metrics.
type callOutcome int

const (
	outcomeOK callOutcome = iota
	outcomeNotFound
	outcomeBadRequest
	outcomeRefused
	outcomeUnavailable
	outcomeTimeout
	outcomeCount
)

// String is the outcome's label value.
func (o callOutcome) String() string {
	switch o {
	case outcomeOK:
		return "ok"
	case outcomeNotFound:
		return "not_found"
	case outcomeBadRequest:
		return "bad_request"
	case outcomeRefused:
		return "refused"
	case outcomeTimeout:
		return "timeout"
	}
	return "unavailable"
}

// timedOut tells a call that ended because its deadline passed: the
// call's own Timeout or the caller's.
func timedOut(ctx context.Context, err error) bool {
	return errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded)
}

// callMetrics are the Prometheus metrics of game-API calls, each label
// child bound once at construction.
type callMetrics struct {
	calls   [endpointCount][outcomeCount]prometheus.Counter
	latency [endpointCount]prometheus.Observer
}

// newCallMetrics registers the call metrics with reg; nil when reg is nil.
func newCallMetrics(reg prometheus.Registerer) (*callMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "crowns_upstream_calls_total",
		Help: "Game-API calls (retries included in one call), by endpoint and outcome.",
	}, []string{"endpoint", "outcome"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "crowns_upstream_call_duration_seconds",
		Help:    "Time a game-API call took, retries included, by endpoint.",
		Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"endpoint"})
	for _, c := range []prometheus.Collector{calls, latency} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	m := &callMetrics{}
	for e := range endpointCount {
		for o := range outcomeCount {
			m.calls[e][o] = calls.WithLabelValues(e.String(), o.String())
		}
		m.latency[e] = latency.WithLabelValues(e.String())
	}
	return m, nil
}

// observe records one finished call.
func (m *callMetrics) observe(e endpoint, o callOutcome, took time.Duration) {
	if m == nil || e < 0 || e >= endpointCount {
		return
	}
	m.calls[e][o].Inc()
	m.latency[e].Observe(took.Seconds())
}

// outcomeOf is the outcome of a call whose answer got was judged f.
func outcomeOf(ctx context.Context, got answer, f failure) callOutcome {
	switch {
	case timedOut(ctx, got.err):
		return outcomeTimeout
	case got.err != nil:
		return outcomeUnavailable
	case errors.Is(f.err, models.ErrNotFound):
		return outcomeNotFound
	case got.status == http.StatusBadRequest:
		return outcomeBadRequest
	case got.status == http.StatusForbidden:
		return outcomeRefused
	}
	return outcomeUnavailable
}
