package scheduler_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/internal/metricstest"
	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
)

func TestDiscoveryPopulatesTheLists(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(tournamentStart)
		u := newTournamentUpstream(t, clock)
		refresher := newTournamentRefresher(t, db, u, tournamentRefresherConfig(clock, "a", nil))

		first := tickTournaments(t, refresher)
		worldTags := u.world.TournamentTags()
		stored := storedTags(t, db)
		if !first.Searched || first.Discovered != len(worldTags) || len(stored) != len(worldTags) {
			t.Fatalf("first tick %+v stored %d tournaments; the world has %d", first, len(stored), len(worldTags))
		}
		for _, tag := range worldTags {
			if !stored[tag] {
				t.Fatalf("the default search terms did not find %s", tag)
			}
		}
		for _, term := range scheduler.DefaultTournamentSearchTerms() {
			if n := u.searches(term); n != 1 {
				t.Fatalf("searched %q %d times, want once", term, n)
			}
		}
		// Found by search, each was then looked up in full in the same tick.
		if first.Refreshed != len(worldTags) || first.Failed != 0 {
			t.Fatalf("first tick refreshed %d, failed %d; want all %d", first.Refreshed, first.Failed, len(worldTags))
		}
		for _, tag := range worldTags {
			row, _ := storedTournament(t, db, tag)
			if started := row.Status != models.TournamentInPreparation; (row.StartTime != nil) != started {
				t.Fatalf("%s %s has start time %v", tag, row.Status, row.StartTime)
			}
		}
		for _, p := range models.TournamentFilters() {
			if len(listedTags(t, db, p)) == 0 {
				t.Errorf("the %s list is empty after discovery", p)
			}
		}
		// Known lists only what clients of the API looked up: nothing yet.
		if known := listedTags(t, db, models.TournamentKnown); len(known) != 0 {
			t.Errorf("the known list holds tournaments only the refresher found: %v", known)
		}

		if again := tickTournaments(t, refresher); again.Searched || again.Refreshed != 0 {
			t.Fatalf("an immediate second tick did %+v", again)
		}
		clock.Advance(scheduler.DefaultTournamentDiscoveryInterval)
		if later := tickTournaments(t, refresher); !later.Searched || u.searches("cup") != 2 {
			t.Fatalf("a discovery period later: %+v, %d searches for cup", later, u.searches("cup"))
		}
	})
}

func TestRefreshMovesATournamentBetweenLists(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(tournamentStart)
		u := newTournamentUpstream(t, clock)
		// Looked up through the API, say.
		preparing := u.lookedUpPreparingTournament(t, db)
		tag := preparing.Tag
		// Stale only after a day: the lookups below are those due to the
		// status moving on.
		cfg := tournamentRefresherConfig(clock, "a", noSearchTerms)
		cfg.RefreshInterval = 24 * time.Hour
		refresher := newTournamentRefresher(t, db, u, cfg)
		known, inprep, joinable := models.TournamentKnown, models.TournamentInPrep, models.TournamentJoinable

		started := preparing.CreatedTime.Add(time.Duration(preparing.PreparationDuration) * time.Second)
		over := started.Add(time.Duration(preparing.Duration) * time.Second)
		// A refresh keeps the tournament in the known list (a client
		// looked it up) while it moves between the others.
		steps := []struct {
			name      string
			at        time.Time
			refreshed int
			status    string
			inLists   [][]models.TournamentPredicate
			notIn     [][]models.TournamentPredicate
		}{
			{"nothing due yet", clock.Now(), 0, models.TournamentInPreparation,
				[][]models.TournamentPredicate{nil, {known}, {known, inprep}}, nil},
			{"just after the start", started.Add(time.Minute), 1, models.TournamentInProgress,
				[][]models.TournamentPredicate{nil, {known}}, [][]models.TournamentPredicate{{inprep}}},
			{"just after the end", over.Add(time.Minute), 1, models.TournamentEnded,
				[][]models.TournamentPredicate{nil, {known}}, [][]models.TournamentPredicate{{inprep}, {joinable}}},
			{"ended ones are not looked up again", over.Add(25 * time.Hour), 0, models.TournamentEnded, nil, nil},
		}
		for _, step := range steps {
			clock.Set(step.at)
			before := u.lookups(tag)
			report := tickTournaments(t, refresher)
			if report.Refreshed != step.refreshed || u.lookups(tag)-before != step.refreshed {
				t.Fatalf("%s: %+v, %d lookups; want %d", step.name, report, u.lookups(tag)-before, step.refreshed)
			}
			row, ok := storedTournament(t, db, tag)
			if !ok || row.Status != step.status {
				t.Fatalf("%s: stored %v %+v, want status %s", step.name, ok, row, step.status)
			}
			for _, predicates := range step.inLists {
				if !slices.Contains(listedTags(t, db, predicates...), tag) {
					t.Errorf("%s: not in the list %v", step.name, predicates)
				}
			}
			for _, predicates := range step.notIn {
				if slices.Contains(listedTags(t, db, predicates...), tag) {
					t.Errorf("%s: still in the list %v", step.name, predicates)
				}
			}
		}
		row, _ := storedTournament(t, db, tag)
		if row.StartTime == nil || *row.StartTime != started.Unix() || row.EndTime == nil || *row.EndTime != over.Unix() {
			t.Fatalf("stored times %v, %v; want %d, %d", row.StartTime, row.EndTime, started.Unix(), over.Unix())
		}

		clock.Set(over.Add(scheduler.DefaultTournamentRetention + scheduler.DefaultTournamentPruneEvery))
		if report := tickTournaments(t, refresher); report.Pruned != 1 {
			t.Fatalf("after the retention: %+v", report)
		}
		if _, ok := storedTournament(t, db, tag); ok {
			t.Fatal("the ended tournament outlived the retention")
		}
	})
}

func TestRefreshesPerTickAreBounded(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(tournamentStart)
		u := newTournamentUpstream(t, clock)
		cfg := tournamentRefresherConfig(clock, "a", nil)
		cfg.RefreshPerMinute, cfg.TickInterval = 10, 30*time.Second
		refresher := newTournamentRefresher(t, db, u, cfg)
		total := 0
		for tick := range 3 {
			report := tickTournaments(t, refresher)
			if report.Refreshed != 5 {
				t.Fatalf("tick %d refreshed %d, want 5 (10 a minute, ticks of 30s)", tick, report.Refreshed)
			}
			total += report.Refreshed
			clock.Advance(30 * time.Second)
		}
		lookups := 0
		for tag := range storedTags(t, db) {
			lookups += u.lookups(tag)
		}
		if lookups != total {
			t.Fatalf("%d lookups upstream for %d refreshes", lookups, total)
		}
	})
}

func TestRefreshesPerMinuteHoldAcrossTicks(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(tournamentStart)
		u := newTournamentUpstream(t, clock)
		cfg := tournamentRefresherConfig(clock, "a", nil)
		cfg.RefreshPerMinute, cfg.TickInterval = 10, 30*time.Second
		refresher := newTournamentRefresher(t, db, u, cfg)
		// The second tick comes 12s after the first (the first ran long,
		// and the ticker's tick waited); a budget of 1 a minute is one
		// lookup every other tick of 30s.
		steps := []struct {
			after time.Duration
			want  int
		}{
			{0, 5}, {12 * time.Second, 2}, {18 * time.Second, 3}, {30 * time.Second, 5},
		}
		for i, step := range steps {
			clock.Advance(step.after)
			if report := tickTournaments(t, refresher); report.Refreshed != step.want {
				t.Fatalf("10 a minute, tick %d (+%s): refreshed %d, want %d", i, step.after, report.Refreshed, step.want)
			}
		}

		cfg.RefreshPerMinute, cfg.Owner = 1, "b"
		slow := newTournamentRefresher(t, db, u, cfg)
		for i, want := range []int{1, 0, 1, 0} {
			if report := tickTournaments(t, slow); report.Refreshed != want {
				t.Fatalf("1 a minute, tick %d: refreshed %d, want %d", i, report.Refreshed, want)
			}
			clock.Advance(30 * time.Second)
		}
	})
}

func TestTwoReplicasShareTheWork(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			stores := openTournamentReplicas(t, engine, 2)
			clock := models.NewManualClock(tournamentStart)
			u := newTournamentUpstream(t, clock)
			replicas := make([]*scheduler.TournamentRefresher, len(stores))
			for i, db := range stores {
				cfg := tournamentRefresherConfig(clock, string(rune('a'+i)), nil)
				cfg.RefreshPerMinute = 60 // 30 a tick: several rounds
				replicas[i] = newTournamentRefresher(t, db, u, cfg)
			}
			searched, refreshed := 0, 0
			for round := 0; ; round++ {
				reports := make([]scheduler.TournamentTickReport, len(replicas))
				var wg sync.WaitGroup
				for i, replica := range replicas {
					wg.Go(func() { reports[i] = tickTournaments(t, replica) })
				}
				wg.Wait()
				done := 0
				for _, report := range reports {
					if report.Searched {
						searched++
					}
					refreshed += report.Refreshed
					done += report.Refreshed
				}
				if done == 0 && round > 0 {
					break
				}
				if round > 50 {
					t.Fatal("the replicas never run out of work")
				}
				clock.Advance(scheduler.DefaultTournamentTickInterval)
			}
			if searched != 1 {
				t.Fatalf("%d replicas searched in one period, want 1", searched)
			}
			for _, term := range scheduler.DefaultTournamentSearchTerms() {
				if n := u.searches(term); n != 1 {
					t.Fatalf("%q searched %d times", term, n)
				}
			}
			stored := storedTags(t, stores[0])
			for tag := range stored {
				if n := u.lookups(tag); n != 1 {
					t.Fatalf("%s looked up %d times by two replicas, want once", tag, n)
				}
			}
			if refreshed != len(stored) {
				t.Fatalf("%d refreshes for %d tournaments", refreshed, len(stored))
			}
		})
	}
}

func TestGoneAndFailingLookups(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(tournamentStart)
		u := newTournamentUpstream(t, clock)
		real := u.tournament(t, u.world.TournamentTags()[0])
		gone := real
		gone.Tag = "2PPCC" // not a sandbox tag
		if err := db.SaveDiscoveredTournaments(ctx, []models.TournamentDetails{real, gone}, clock.Now()); err != nil {
			t.Fatal(err)
		}
		u.failLookups(real.Tag, true)
		reg := prometheus.NewRegistry()
		cfg := tournamentRefresherConfig(clock, "a", noSearchTerms)
		cfg.Metrics = reg
		refresher := newTournamentRefresher(t, db, u, cfg)

		if report := tickTournaments(t, refresher); report.Gone != 1 || report.Failed != 1 || report.Refreshed != 0 {
			t.Fatalf("first tick: %+v", report)
		}
		if _, ok := storedTournament(t, db, gone.Tag); ok {
			t.Fatal("a tournament gone upstream is still known")
		}
		if _, ok := storedTournament(t, db, real.Tag); !ok {
			t.Fatal("a failed lookup dropped the tournament")
		}
		clock.Advance(time.Minute)
		if report := tickTournaments(t, refresher); report.Failed != 0 || u.lookups(real.Tag) != 2 {
			t.Fatalf("within the lease: %+v, %d lookups (1 by the test, 1 failed)", report, u.lookups(real.Tag))
		}
		u.failLookups(real.Tag, false)
		clock.Advance(2 * time.Minute)
		if report := tickTournaments(t, refresher); report.Refreshed != 1 {
			t.Fatalf("after the lease: %+v", report)
		}
		families := metricstest.Gather(t, reg)
		for outcome, want := range map[string]float64{"done": 1, "gone": 1, "failed": 1} {
			if got := families.Value("crowns_scheduler_tournament_refreshes_total", map[string]string{"outcome": outcome}); got != want {
				t.Errorf("crowns_scheduler_tournament_refreshes_total{outcome=%q} = %v, want %v", outcome, got, want)
			}
		}
	})
}

// TestALookupCutByShutdownIsGivenBack: a lookup under way when its
// replica stops is given back, so another replica looks the tournament up
// at once rather than when the lease would have ended.
func TestALookupCutByShutdownIsGivenBack(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		clock := models.NewManualClock(tournamentStart)
		u := newTournamentUpstream(t, clock)
		found := u.tournament(t, u.world.TournamentTags()[0])
		if err := db.SaveDiscoveredTournaments(ctx, []models.TournamentDetails{found}, clock.Now()); err != nil {
			t.Fatal(err)
		}
		stopping, stop := context.WithCancel(ctx)
		// The replica stops while its lookup waits for the game API.
		u.interceptLookups(func(r *http.Request) {
			stop()
			<-r.Context().Done()
		})
		a := newTournamentRefresher(t, db, u, tournamentRefresherConfig(clock, "a", noSearchTerms))
		if report, _ := a.Tick(stopping); report.Refreshed != 0 || report.Failed != 1 {
			t.Fatalf("the tick cut by the stop: %+v, want its one lookup failed", report)
		}
		u.interceptLookups(nil)
		b := newTournamentRefresher(t, db, u, tournamentRefresherConfig(clock, "b", noSearchTerms))
		if report := tickTournaments(t, b); report.Refreshed != 1 {
			t.Fatalf("another replica at the same instant: %+v, want the lookup given back and done", report)
		}
	})
}

func TestNewTournamentRefresherRejectsBadConfig(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	u := newTournamentUpstream(t, models.NewManualClock(tournamentStart))
	for _, tt := range []struct {
		name    string
		change  func(*scheduler.TournamentRefresherConfig)
		problem string
	}{
		{"short search term", func(c *scheduler.TournamentRefresherConfig) { c.SearchTerms = []string{"cup", " ab "} }, `SearchTerms holds " ab "`},
		{"lease within the fetch timeout", func(c *scheduler.TournamentRefresherConfig) { c.Lease = c.UpstreamTimeout }, "Lease"},
		{"negative budget", func(c *scheduler.TournamentRefresherConfig) { c.RefreshPerMinute = -1 }, "RefreshPerMinute"},
		{"negative retention", func(c *scheduler.TournamentRefresherConfig) { c.Retention = -time.Hour }, "Retention"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tournamentRefresherConfig(models.SystemClock{}, "a", nil)
			tt.change(&cfg)
			_, err := scheduler.NewTournamentRefresher(db, u.client, cfg)
			if err == nil || !strings.Contains(err.Error(), tt.problem) {
				t.Fatalf("error %v, want one naming %s", err, tt.problem)
			}
		})
	}
	if _, err := scheduler.NewTournamentRefresher(nil, u.client, scheduler.TournamentRefresherConfig{}); err == nil {
		t.Fatal("no database accepted")
	}
}

// TestConfigProblemsNameEachField: every problem is reported on its own,
// naming its field, so that crowns serve can name the variable an
// operator set instead.
func TestConfigProblemsNameEachField(t *testing.T) {
	cfg := scheduler.TournamentRefresherConfig{
		SearchTerms: []string{"ab"}, RefreshInterval: time.Second, DiscoveryInterval: time.Second,
		Retention: time.Minute, RefreshPerMinute: scheduler.MaxTournamentRefreshPerMinute + 1,
	}
	_, err := cfg.Checked()
	var problems scheduler.ConfigProblems
	if !errors.As(err, &problems) {
		t.Fatalf("error %v, want ConfigProblems", err)
	}
	var fields []string
	for _, p := range problems {
		fields = append(fields, p.Field)
	}
	want := []string{"SearchTerms", "DiscoveryInterval", "RefreshInterval", "Retention", "RefreshPerMinute"}
	if !slices.Equal(fields, want) {
		t.Fatalf("problems of %v, want %v", fields, want)
	}
	named := problems.Named(map[string]string{"Retention": "KEEP_FOR"})
	if named[3] != "KEEP_FOR must be at least 1h0m0s" || named[4] != "RefreshPerMinute must be at most 6000" {
		t.Fatalf("named problems %q", named)
	}
}

func TestRunTicksAtOnceAndStopsWhenCancelled(t *testing.T) {
	db := storetest.Open(t, store.DialectSQLite)
	clock := models.NewManualClock(tournamentStart)
	u := newTournamentUpstream(t, clock)
	searched := make(chan struct{})
	u.onSearch = func() { close(searched) }
	refresher := newTournamentRefresher(t, db, u, tournamentRefresherConfig(clock, "a", []string{"cup"}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- refresher.Run(ctx) }()
	select {
	case <-searched:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not tick at once")
	}
	cancel()
	expectRunReturnsNil(t, done)
}
