package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metricsOff is the CROWNS_METRICS_ADDR value that serves no metrics.
const metricsOff = "off"

// databaseStats is what the database metrics read of the store.
type databaseStats interface {
	// RequestQueryCount and BackgroundQueryCount count the statements
	// sent, each its own counter: those of background work, and the
	// rest.
	RequestQueryCount() int64
	BackgroundQueryCount() int64
	PoolStats() sql.DBStats
}

// newMetricsRegistry is this process's own registry (never the global
// default): the Go runtime's and the process's metrics, and those of the
// database; the roles register theirs as they start.
func newMetricsRegistry(db databaseStats) (*prometheus.Registry, error) {
	reg := prometheus.NewRegistry()
	cs := []prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}
	cs = append(cs, databaseCollectors(db)...)
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	return reg, nil
}

// databaseCollectors read the store's statement counter and pool
// statistics at each scrape.
func databaseCollectors(db databaseStats) []prometheus.Collector {
	statements := func(work string, count func() float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name:        "crowns_database_statements_total",
			Help:        "SQL statements sent to the database, by the work that sent them: background work (key-event sync, usage flush, change feed, scheduler ticks), or request for the rest (API requests, bot commands, start-up).",
			ConstLabels: prometheus.Labels{"work": work},
		}, count)
	}
	pool := func(name, help string, read func(sql.DBStats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "crowns_database_" + name, Help: help},
			func() float64 { return read(db.PoolStats()) })
	}
	poolCounter := func(name, help string, read func(sql.DBStats) float64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "crowns_database_" + name, Help: help},
			func() float64 { return read(db.PoolStats()) })
	}
	return []prometheus.Collector{
		statements("request", func() float64 { return float64(db.RequestQueryCount()) }),
		statements("background", func() float64 { return float64(db.BackgroundQueryCount()) }),
		pool("connections_open", "Open connections of the database pool.", func(s sql.DBStats) float64 { return float64(s.OpenConnections) }),
		pool("connections_in_use", "Connections of the database pool in use.", func(s sql.DBStats) float64 { return float64(s.InUse) }),
		pool("connections_idle", "Idle connections of the database pool.", func(s sql.DBStats) float64 { return float64(s.Idle) }),
		pool("connections_max_open", "Most connections the database pool opens.", func(s sql.DBStats) float64 { return float64(s.MaxOpenConnections) }),
		poolCounter("connection_waits_total", "Times a statement waited for a free connection of the pool.", func(s sql.DBStats) float64 { return float64(s.WaitCount) }),
		poolCounter("connection_wait_seconds_total", "Time statements waited for a free connection of the pool.", func(s sql.DBStats) float64 { return s.WaitDuration.Seconds() }),
	}
}

// metricsServer serves /metrics on its own listener, never the API's.
type metricsServer struct {
	server *http.Server
}

// startMetricsServer serves reg at /metrics on ln, which serve bound
// before anything started; failures of the server after the start go to
// failures.
func startMetricsServer(ln net.Listener, reg *prometheus.Registry, log *slog.Logger, failures chan<- error) *metricsServer {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	m := &metricsServer{
		server: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second},
	}
	go func() {
		if err := m.server.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			failures <- fmt.Errorf("serve metrics: %w", err)
		}
	}()
	log.Info("metrics listening", "addr", ln.Addr().String(), "path", "/metrics")
	return m
}

// shutdown stops the metrics server, waiting for scrapes in flight at
// most until ctx ends.
func (m *metricsServer) shutdown(ctx context.Context) error { return m.server.Shutdown(ctx) }

// sameListenAddress tells whether two listen addresses would take the
// same port: equal, or one port with either host unspecified (all
// interfaces).
func sameListenAddress(a, b string) bool {
	if a == b {
		return true
	}
	hostA, portA, errA := net.SplitHostPort(a)
	hostB, portB, errB := net.SplitHostPort(b)
	if errA != nil || errB != nil || portA != portB || portA == "0" {
		return false
	}
	unspecified := func(host string) bool {
		ip := net.ParseIP(host)
		return host == "" || (ip != nil && ip.IsUnspecified())
	}
	return hostA == hostB || unspecified(hostA) || unspecified(hostB)
}
