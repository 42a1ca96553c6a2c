package main

import (
	"bytes"
	"github.com/crownsdev/crowns/scheduler"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTournamentSettings(t *testing.T) {
	defaults := scheduler.TournamentRefresherConfig{
		SearchTerms:     []string{"cup", "clash", "battle", "league", "arena", "open", "brawl", "masters", "showdown", "championship", "tournament", "free", "royale"},
		RefreshInterval: 10 * time.Minute, RefreshPerMinute: 60, DiscoveryInterval: 15 * time.Minute, Retention: 72 * time.Hour,
	}
	tests := []struct {
		name    string
		env     map[string]string
		want    scheduler.TournamentRefresherConfig
		problem string
	}{
		{"defaults", nil, defaults, ""},
		{"set", map[string]string{
			"CROWNS_TOURNAMENT_SEARCH_TERMS":       " Weekly Cup , ,finale,",
			"CROWNS_TOURNAMENT_REFRESH_INTERVAL":   "5m",
			"CROWNS_TOURNAMENT_REFRESH_PER_MINUTE": "300",
			"CROWNS_TOURNAMENT_DISCOVERY_INTERVAL": "1h",
			"CROWNS_TOURNAMENT_RETENTION":          "168h",
		}, scheduler.TournamentRefresherConfig{SearchTerms: []string{"Weekly Cup", "finale"}, RefreshInterval: 5 * time.Minute, RefreshPerMinute: 300,
			DiscoveryInterval: time.Hour, Retention: 168 * time.Hour}, ""},
		{"blank terms keep the defaults", map[string]string{"CROWNS_TOURNAMENT_SEARCH_TERMS": " , "}, defaults, ""},
		{"a short term", map[string]string{"CROWNS_TOURNAMENT_SEARCH_TERMS": "cup,ab"}, scheduler.TournamentRefresherConfig{},
			`CROWNS_TOURNAMENT_SEARCH_TERMS holds "ab", shorter than 3 characters`},
		{"too many terms", map[string]string{"CROWNS_TOURNAMENT_SEARCH_TERMS": strings.Repeat("cup,", 51)}, scheduler.TournamentRefresherConfig{},
			"CROWNS_TOURNAMENT_SEARCH_TERMS lists more than 50 terms"},
		{"refresh too often", map[string]string{"CROWNS_TOURNAMENT_REFRESH_INTERVAL": "30s"}, scheduler.TournamentRefresherConfig{},
			"CROWNS_TOURNAMENT_REFRESH_INTERVAL must be at least 1m0s"},
		{"refresh interval not a duration", map[string]string{"CROWNS_TOURNAMENT_REFRESH_INTERVAL": "often"}, scheduler.TournamentRefresherConfig{},
			`CROWNS_TOURNAMENT_REFRESH_INTERVAL must be a duration such as 3m or 10s, got "often"`},
		{"no lookups", map[string]string{"CROWNS_TOURNAMENT_REFRESH_PER_MINUTE": "0"}, scheduler.TournamentRefresherConfig{},
			`CROWNS_TOURNAMENT_REFRESH_PER_MINUTE must be a whole number from 1 to 6000, got "0"`},
		{"search too often", map[string]string{"CROWNS_TOURNAMENT_DISCOVERY_INTERVAL": "10s"}, scheduler.TournamentRefresherConfig{},
			"CROWNS_TOURNAMENT_DISCOVERY_INTERVAL must be at least 1m0s"},
		{"retention too short", map[string]string{"CROWNS_TOURNAMENT_RETENTION": "30m"}, scheduler.TournamentRefresherConfig{},
			"CROWNS_TOURNAMENT_RETENTION must be at least 1h0m0s"},
		// The refresher reads a zero field as its default: a variable set to
		// zero is below the minimum all the same, not the default.
		{"refresh interval zero", map[string]string{"CROWNS_TOURNAMENT_REFRESH_INTERVAL": "0s"}, scheduler.TournamentRefresherConfig{},
			"CROWNS_TOURNAMENT_REFRESH_INTERVAL must be at least 1m0s"},
		{"discovery interval zero", map[string]string{"CROWNS_TOURNAMENT_DISCOVERY_INTERVAL": "0"}, scheduler.TournamentRefresherConfig{},
			"CROWNS_TOURNAMENT_DISCOVERY_INTERVAL must be at least 1m0s"},
		{"retention zero", map[string]string{"CROWNS_TOURNAMENT_RETENTION": "0h"}, scheduler.TournamentRefresherConfig{},
			"CROWNS_TOURNAMENT_RETENTION must be at least 1h0m0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ok := loadConfigExpecting(t, tt.env, tt.problem)
			if !ok {
				return
			}
			got := cfg.TournamentRefresh
			if !slices.Equal(got.SearchTerms, tt.want.SearchTerms) || got.RefreshInterval != tt.want.RefreshInterval ||
				got.RefreshPerMinute != tt.want.RefreshPerMinute || got.DiscoveryInterval != tt.want.DiscoveryInterval || got.Retention != tt.want.Retention {
				t.Fatalf("settings %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestTournamentRefreshIsPrinted(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "CROWNS_TOURNAMENTS off CROWNS_TOURNAMENT_SEARCH_TERMS"},
		{map[string]string{"CROWNS_TOURNAMENTS": "on", "CROWNS_ROLES": "api"}, "CROWNS_TOURNAMENTS on (no refresh here: the scheduler role is not selected)"},
		{map[string]string{"CROWNS_TOURNAMENTS": "on", "CROWNS_TOURNAMENT_SEARCH_TERMS": "cup,league"},
			"CROWNS_TOURNAMENTS on CROWNS_TOURNAMENT_SEARCH_TERMS cup,league CROWNS_TOURNAMENT_REFRESH_INTERVAL 10m0s CROWNS_TOURNAMENT_REFRESH_PER_MINUTE 60 CROWNS_TOURNAMENT_DISCOVERY_INTERVAL 15m0s CROWNS_TOURNAMENT_RETENTION 72h0m0s"},
	} {
		cfg, err := loadConfig(func(name string) string { return tt.env[name] })
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		logConfiguration(&out, newLogger(&out, cfg), cfg)
		if printed := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(printed, tt.want) {
			t.Errorf("printed configuration lacks %q:\n%s", tt.want, out.String())
		}
	}
}

func TestServeWithTournamentsOnFillsTheLists(t *testing.T) {
	n := startServe(t, map[string]string{"CROWNS_DATA_DIR": t.TempDir(), "CROWNS_TOURNAMENTS": "on"})
	select {
	case <-n.stdout.seen:
	case <-time.After(30 * time.Second):
		t.Fatalf("no welcome on the first start:\n%s", n.stdout.String())
	}
	key := "Bearer " + printedKey.FindString(n.stdout.String())
	waitForLog(t, n.stderr, "tournament search round done")
	var found string
	for _, list := range []string{"1k", "full", "open", "inprep", "joinable"} {
		var tournaments []map[string]any
		if code := getJSON(t, n.url("/tournaments/"+list), key, &tournaments); code != http.StatusOK || len(tournaments) == 0 {
			t.Fatalf("/tournaments/%s right after the first search round: status %d, %d tournaments", list, code, len(tournaments))
		}
		found = tournaments[0]["tag"].(string)
	}
	// known holds only what clients looked up: nothing yet, then the one
	// tournament looked up.
	var known []map[string]any
	if code := getJSON(t, n.url("/tournaments/known"), key, &known); code != http.StatusOK || len(known) != 0 {
		t.Fatalf("/tournaments/known before any lookup: status %d, %v", code, known)
	}
	var one map[string]any
	if code := getJSON(t, n.url("/tournament/"+found), key, &one); code != http.StatusOK || one["members"] == nil {
		t.Fatalf("a discovered tournament: status %d, %v", code, one)
	}
	if code := getJSON(t, n.url("/tournaments/known"), key, &known); code != http.StatusOK || len(known) != 1 || known[0]["tag"] != found {
		t.Fatalf("/tournaments/known after looking %s up: status %d, %v", found, code, known)
	}
}
