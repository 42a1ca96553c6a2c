package api

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// routeUnmatched is the route label of requests no route matched: the
// label never carries a raw path, so its values stay few.
const routeUnmatched = "unmatched"

// requestMetrics are the Prometheus metrics of the requests the API
// answers: a count by route pattern and status, and a latency histogram
// by route pattern.
type requestMetrics struct {
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	unmatched *routeMetrics
	// outcomes count cache lookups, key verifications and refusals.
	outcomes outcomeMetrics
}

// newRequestMetrics registers the request metrics with reg; nil when reg
// is nil (no metrics).
func newRequestMetrics(reg prometheus.Registerer) (*requestMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &requestMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "crowns_http_requests_total",
			Help: "API requests answered, by route pattern (\"unmatched\" when none matched) and status.",
		}, []string{"route", "status"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "crowns_http_request_duration_seconds",
			Help:    "Time from reading an API request to having its answer ready, by route pattern.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.durations} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	if err := m.outcomes.register(reg); err != nil {
		return nil, err
	}
	m.unmatched = m.route(routeUnmatched)
	return m, nil
}

// route binds the metrics of one route pattern, once, at registration;
// nil without metrics.
func (m *requestMetrics) route(pattern string) *routeMetrics {
	if m == nil {
		return nil
	}
	return &routeMetrics{route: pattern, requests: m.requests, duration: m.durations.WithLabelValues(pattern)}
}

// observe counts one answered request of route (nil: no route matched).
func (m *requestMetrics) observe(route *routeMetrics, status int, latency time.Duration) {
	if route == nil {
		route = m.unmatched
	}
	route.duration.Observe(latency.Seconds())
	route.counter(status).Inc()
}

// refusedBeforeRouting counts one request the HTTP server refused before
// the app saw it (see Server.refusedUnseen), as no route matched. Its
// latency is not observed: the server does not tell when it began to
// read it.
func (m *requestMetrics) refusedBeforeRouting(status int) {
	if m != nil {
		m.unmatched.counter(status).Inc()
	}
}

// routeMetrics are one route's bound metrics: its histogram, and its
// counter per status, bound on first use, so that a request costs no
// label lookup.
type routeMetrics struct {
	route    string
	requests *prometheus.CounterVec
	duration prometheus.Observer
	// statuses holds the bound counter of each HTTP status seen so far.
	statuses [600]atomic.Pointer[prometheus.Counter]
}

// counter is the route's counter of status.
func (r *routeMetrics) counter(status int) prometheus.Counter {
	if status < 0 || status >= len(r.statuses) {
		return r.requests.WithLabelValues(r.route, strconv.Itoa(status))
	}
	if c := r.statuses[status].Load(); c != nil {
		return *c
	}
	// Two requests binding the same status at once get the same child.
	c := r.requests.WithLabelValues(r.route, strconv.Itoa(status))
	r.statuses[status].Store(&c)
	return c
}
