package main

import (
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/scheduler"
)

// tournamentRefresh reads the CROWNS_TOURNAMENT_* variables into the
// tournament refresher's configuration, each into the field of the same
// name (CROWNS_TOURNAMENT_REFRESH_INTERVAL is RefreshInterval), an unset
// one taking the scheduler's exported default as every setting does, and
// reports the problems the refresher finds with them. A lookup is bounded
// by upstreamTimeout, CROWNS_UPSTREAM_TIMEOUT.
func (r *envReader) tournamentRefresh(upstreamTimeout time.Duration) scheduler.TournamentRefresherConfig {
	c := scheduler.TournamentRefresherConfig{
		SearchTerms:       r.list("CROWNS_TOURNAMENT_SEARCH_TERMS", scheduler.DefaultTournamentSearchTerms()),
		RefreshInterval:   r.setDuration("CROWNS_TOURNAMENT_REFRESH_INTERVAL", scheduler.DefaultTournamentRefreshInterval),
		RefreshPerMinute:  r.integer("CROWNS_TOURNAMENT_REFRESH_PER_MINUTE", scheduler.DefaultTournamentRefreshPerMinute, 1, scheduler.MaxTournamentRefreshPerMinute),
		DiscoveryInterval: r.setDuration("CROWNS_TOURNAMENT_DISCOVERY_INTERVAL", scheduler.DefaultTournamentDiscoveryInterval),
		Retention:         r.setDuration("CROWNS_TOURNAMENT_RETENTION", scheduler.DefaultTournamentRetention),
		UpstreamTimeout:   upstreamTimeout,
	}
	checked, err := c.Checked()
	var problems scheduler.ConfigProblems
	switch {
	case errors.As(err, &problems):
		for _, problem := range problems.Named(tournamentVariables) {
			r.fail("%s", problem)
		}
	case err != nil:
		r.fail("%s", err)
	}
	return checked
}

// tournamentVariables names the refresher's settings by the variables an
// operator sets them with.
var tournamentVariables = map[string]string{
	"SearchTerms":       "CROWNS_TOURNAMENT_SEARCH_TERMS",
	"RefreshInterval":   "CROWNS_TOURNAMENT_REFRESH_INTERVAL",
	"RefreshPerMinute":  "CROWNS_TOURNAMENT_REFRESH_PER_MINUTE",
	"DiscoveryInterval": "CROWNS_TOURNAMENT_DISCOVERY_INTERVAL",
	"Retention":         "CROWNS_TOURNAMENT_RETENTION",
	"UpstreamTimeout":   "CROWNS_UPSTREAM_TIMEOUT",
}

// setDuration is duration for a field the refresher reads as its default
// when zero: a variable set to zero is given as -1ns, so that it is
// refused as below the minimum with the rest, not taken for the default.
func (r *envReader) setDuration(name string, def time.Duration) time.Duration {
	if d := r.duration(name, def); d != 0 {
		return d
	}
	return -time.Nanosecond
}

// list reads a comma-separated list; blank items are dropped, and an
// unset or blank variable gives def.
func (r *envReader) list(name string, def []string) []string {
	var items []string
	for _, item := range strings.Split(r.getenv(name), ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	if len(items) == 0 {
		return def
	}
	return items
}

// newTournamentRefresher builds the tournament refresher from the
// configuration.
func newTournamentRefresher(cfg config, db *store.Store, source scheduler.TournamentSource, clock models.Clock, log *slog.Logger, metrics prometheus.Registerer) (*scheduler.TournamentRefresher, error) {
	refresh := cfg.TournamentRefresh
	refresh.Clock, refresh.Logger, refresh.Metrics = clock, log, metrics
	return scheduler.NewTournamentRefresher(db, source, refresh)
}
