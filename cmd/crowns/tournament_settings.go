package main

import (
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/scheduler"
)

// maxTournamentSearchTerms bounds CROWNS_TOURNAMENT_SEARCH_TERMS: each
// term is one upstream search per discovery period.
const maxTournamentSearchTerms = 50

// tournamentSettings tune the tournament refresher, which runs when
// tournaments are on and the process has the scheduler role.
type tournamentSettings struct {
	// SearchTerms are searched for upstream to discover tournaments.
	SearchTerms []string
	// RefreshInterval is how stale a tournament that has not ended may
	// grow before it is looked up again.
	RefreshInterval time.Duration
	// RefreshPerMinute bounds this process's lookups of known tournaments.
	RefreshPerMinute int
	// DiscoveryInterval is how often the search terms are searched for.
	DiscoveryInterval time.Duration
	// Retention is how long an ended tournament is kept.
	Retention time.Duration
}

// tournamentSettings reads the CROWNS_TOURNAMENT_* variables.
func (r *envReader) tournamentSettings() tournamentSettings {
	s := tournamentSettings{
		SearchTerms:       r.list("CROWNS_TOURNAMENT_SEARCH_TERMS", scheduler.DefaultTournamentSearchTerms()),
		RefreshInterval:   r.duration("CROWNS_TOURNAMENT_REFRESH_INTERVAL", scheduler.DefaultTournamentStaleAfter),
		RefreshPerMinute:  r.integer("CROWNS_TOURNAMENT_REFRESH_PER_MINUTE", scheduler.DefaultTournamentRefreshesPerMinute, 1, 6000),
		DiscoveryInterval: r.duration("CROWNS_TOURNAMENT_DISCOVERY_INTERVAL", scheduler.DefaultTournamentDiscoverEvery),
		Retention:         r.duration("CROWNS_TOURNAMENT_RETENTION", scheduler.DefaultTournamentRetention),
	}
	r.check(len(s.SearchTerms) <= maxTournamentSearchTerms,
		fmt.Sprintf("CROWNS_TOURNAMENT_SEARCH_TERMS lists more than %d terms", maxTournamentSearchTerms))
	for _, term := range s.SearchTerms {
		r.check(utf8.RuneCountInString(term) >= scheduler.MinTournamentSearchTermLength,
			fmt.Sprintf("CROWNS_TOURNAMENT_SEARCH_TERMS: %q is shorter than %d characters", term, scheduler.MinTournamentSearchTermLength))
	}
	r.check(s.RefreshInterval >= time.Minute, "CROWNS_TOURNAMENT_REFRESH_INTERVAL must be at least 1m")
	r.check(s.DiscoveryInterval >= time.Minute, "CROWNS_TOURNAMENT_DISCOVERY_INTERVAL must be at least 1m")
	r.check(s.Retention >= time.Hour, "CROWNS_TOURNAMENT_RETENTION must be at least 1h")
	return s
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

// tournamentRefreshSummary is the configuration summary's value of the
// tournament refresher.
func (c config) tournamentRefreshSummary() slog.Value {
	switch {
	case !c.Tournaments:
		return slog.StringValue("off (CROWNS_TOURNAMENTS is off)")
	case !c.Roles.Scheduler:
		return slog.StringValue("off (role scheduler not selected)")
	}
	s := c.TournamentRefresh
	return slog.GroupValue(
		slog.String("searchTerms", strings.Join(s.SearchTerms, ",")),
		slog.Duration("discoveryInterval", s.DiscoveryInterval),
		slog.Int("refreshPerMinute", s.RefreshPerMinute),
		slog.Duration("staleAfter", s.RefreshInterval),
		slog.Duration("keepEnded", s.Retention),
	)
}

// newTournamentRefresher builds the tournament refresher from the
// configuration.
func newTournamentRefresher(cfg config, db *store.Store, source scheduler.TournamentSource, clock models.Clock, log *slog.Logger, metrics prometheus.Registerer) (*scheduler.TournamentRefresher, error) {
	s := cfg.TournamentRefresh
	return scheduler.NewTournamentRefresher(db, source, scheduler.TournamentRefresherConfig{
		SearchTerms:        s.SearchTerms,
		DiscoverEvery:      s.DiscoveryInterval,
		StaleAfter:         s.RefreshInterval,
		RefreshesPerMinute: s.RefreshPerMinute,
		Retention:          s.Retention,
		Metrics:            metrics,
		Clock:              clock,
		Logger:             log,
	})
}
