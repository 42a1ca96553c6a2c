package main

import (
	"database/sql"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/internal/metricstest"
)

// busyDatabase is a database whose background work sends a statement
// each time one of its counts is read, as a scheduler tick or the key
// event sync does while Prometheus scrapes; requests sent none.
type busyDatabase struct {
	request, background int64
}

func (d *busyDatabase) RequestQueryCount() int64 {
	n := d.request
	d.background++
	return n
}

func (d *busyDatabase) BackgroundQueryCount() int64 {
	n := d.background
	d.background++
	return n
}

func (d *busyDatabase) PoolStats() sql.DBStats { return sql.DBStats{} }

// TestRequestStatementsDoNotMoveWithBackgroundWork: the statements of
// requests are counted apart from those of background work, so that a
// background statement sent while the counts are read neither adds to
// nor takes from work="request" — a counter that went down would read
// as a reset to rate().
func TestRequestStatementsDoNotMoveWithBackgroundWork(t *testing.T) {
	db := &busyDatabase{request: 5, background: 100}
	reg := prometheus.NewRegistry()
	for _, c := range databaseCollectors(db) {
		reg.MustRegister(c)
	}
	for scrape := range 3 {
		families := metricstest.Gather(t, reg)
		if got := families.Value("crowns_database_statements_total", map[string]string{"work": "request"}); got != 5 {
			t.Fatalf("scrape %d: crowns_database_statements_total{work=\"request\"} = %v, want 5: requests sent no statement", scrape, got)
		}
	}
}
