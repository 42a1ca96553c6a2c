package scheduler_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/scheduler"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// A search result carries no start or end time. When a search round sees
// a looked-up tournament start, or end, before a refresh does, the list
// still shows its status with the times that go with it: the refresh of
// the same tick moves status and times together.
func TestDiscoveryBetweenRefreshesKeepsStatusAndTimesTogether(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(tournamentStart)
		u := newTournamentUpstream(t, clock)
		// Looked up through the API, say.
		preparing := u.lookedUpPreparingTournament(t, db)
		tag := preparing.Tag
		// Every tick below runs a search round that finds the tournament
		// (by its name) before the refresh; stale only after a day, so
		// the lookups are those due to the status moving on.
		cfg := tournamentRefresherConfig(clock, "a", []string{preparing.Name})
		cfg.DiscoveryInterval, cfg.RefreshInterval = time.Minute, 24*time.Hour
		refresher := newTournamentRefresher(t, db, u, cfg)

		started := preparing.CreatedTime.Add(time.Duration(preparing.PreparationDuration) * time.Second)
		over := started.Add(time.Duration(preparing.Duration) * time.Second)
		steps := []struct {
			name       string
			at         time.Time
			found      bool // by the search round
			lookups    int
			status     string
			start, end time.Time
		}{
			{"in preparation", clock.Now(), true, 0, models.TournamentInPreparation, time.Time{}, time.Time{}},
			{"the search sees it started", started.Add(time.Minute), true, 1, models.TournamentInProgress, started, time.Time{}},
			{"the search sees it running", started.Add(30 * time.Minute), true, 0, models.TournamentInProgress, started, time.Time{}},
			{"the search sees it ended", over.Add(time.Minute), true, 1, models.TournamentEnded, started, over},
			{"ended a day ago", over.Add(25 * time.Hour), false, 0, models.TournamentEnded, started, over},
		}
		for _, step := range steps {
			clock.Set(step.at)
			before, searchesBefore := u.lookups(tag), u.searches(preparing.Name)
			report := tickTournaments(t, refresher)
			if !report.Searched || u.searches(preparing.Name) != searchesBefore+1 {
				t.Fatalf("%s: no search round: %+v", step.name, report)
			}
			if found := searchFinds(t, u, preparing.Name, tag); found != step.found {
				t.Fatalf("%s: the search finds the tournament: %v, want %v", step.name, found, step.found)
			}
			if got := u.lookups(tag) - before; got != step.lookups {
				t.Fatalf("%s: %d lookups, want %d (%+v)", step.name, got, step.lookups, report)
			}
			item := listElement(t, db, tag)
			if item.Status != step.status || !sameUnix(item.StartTime, step.start) || !sameUnix(item.EndTime, step.end) {
				t.Fatalf("%s: listed as %s from %v to %v; want %s from %v to %v", step.name,
					item.Status, unixText(item.StartTime), unixText(item.EndTime), step.status, step.start, step.end)
			}
		}
	})
}

// searchFinds says whether searching upstream for term now finds tag.
func searchFinds(t *testing.T, u *tournamentUpstream, term, tag string) bool {
	t.Helper()
	results, err := u.client.SearchTournaments(context.Background(), term, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, result := range results {
		if result.Tag == tag {
			return true
		}
	}
	return false
}

// listElement is tag as the full list's shape shows it, whichever lists
// hold it.
func listElement(t *testing.T, db *store.Store, tag string) legacy.FullTournament {
	t.Helper()
	records, err := db.ListTournaments(context.Background(), nil, models.MaxTournamentListLength)
	if err != nil {
		t.Fatal(err)
	}
	for _, record := range records {
		if record.Tag == tag {
			return legacy.NewFullTournament(record)
		}
	}
	t.Fatalf("%s is not stored", tag)
	return legacy.FullTournament{}
}

// sameUnix says whether seconds (nil for none) is want (zero for none).
func sameUnix(seconds *int64, want time.Time) bool {
	if seconds == nil || want.IsZero() {
		return seconds == nil && want.IsZero()
	}
	return *seconds == want.Unix()
}

// unixText is seconds as a time, or "null".
func unixText(seconds *int64) string {
	if seconds == nil {
		return "null"
	}
	return time.Unix(*seconds, 0).UTC().String()
}

// failingSaves is a tournament store whose saving of search results fails
// failures times.
type failingSaves struct {
	*store.Store
	failures int
}

func (f *failingSaves) SaveDiscoveredTournaments(ctx context.Context, found []models.TournamentDetails, now time.Time) error {
	if f.failures > 0 {
		f.failures--
		return models.ErrUnavailable
	}
	return f.Store.SaveDiscoveredTournaments(ctx, found, now)
}

// TestAFailedSearchRoundIsTriedAgainAtTheNextTick: a round whose results
// could not be saved gives its claim back, so the next tick searches
// again instead of waiting for the next period.
func TestAFailedSearchRoundIsTriedAgainAtTheNextTick(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(tournamentStart)
		u := newTournamentUpstream(t, clock)
		cfg := tournamentRefresherConfig(clock, "a", []string{"cup"})
		cfg.DiscoveryInterval = time.Hour
		refresher, err := scheduler.NewTournamentRefresher(&failingSaves{Store: db, failures: 1}, u.client, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := refresher.Tick(context.Background()); !errors.Is(err, models.ErrUnavailable) {
			t.Fatalf("tick with the save failing: %v, want unavailable", err)
		}
		clock.Advance(30 * time.Second)
		report := tickTournaments(t, refresher)
		if !report.Searched || report.Discovered == 0 {
			t.Fatalf("the tick after the failed round = %+v, want the round again", report)
		}
		clock.Advance(30 * time.Second)
		if report := tickTournaments(t, refresher); report.Searched {
			t.Fatalf("a tick after the round worked searched again: %+v", report)
		}
	})
}

// failingPrunes is a tournament store whose retention pass fails
// failures times; calls counts the passes asked of it.
type failingPrunes struct {
	*store.Store
	failures, calls int
}

func (f *failingPrunes) PruneTournaments(ctx context.Context, cutoff time.Time) (int64, error) {
	f.calls++
	if f.failures > 0 {
		f.failures--
		return 0, models.ErrUnavailable
	}
	return f.Store.PruneTournaments(ctx, cutoff)
}

// TestAFailedRetentionPassIsTriedAgainAtTheNextTick: a retention pass
// that fails gives its claim back, so the next tick runs it again instead
// of waiting for the next period (PruneEvery).
func TestAFailedRetentionPassIsTriedAgainAtTheNextTick(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		clock := models.NewManualClock(tournamentStart)
		u := newTournamentUpstream(t, clock)
		cfg := tournamentRefresherConfig(clock, "a", []string{"cup"})
		cfg.PruneEvery = time.Hour
		prunes := &failingPrunes{Store: db, failures: 1}
		refresher, err := scheduler.NewTournamentRefresher(prunes, u.client, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := refresher.Tick(context.Background()); !errors.Is(err, models.ErrUnavailable) {
			t.Fatalf("tick with the retention pass failing: %v, want unavailable", err)
		}
		clock.Advance(30 * time.Second)
		tickTournaments(t, refresher)
		if prunes.calls != 2 {
			t.Fatalf("retention passes after a failed one and a tick = %d, want 2: the pass again at the next tick", prunes.calls)
		}
		clock.Advance(30 * time.Second)
		tickTournaments(t, refresher)
		if prunes.calls != 2 {
			t.Fatalf("retention passes a tick after one worked = %d, want still 2: the next waits for PruneEvery", prunes.calls)
		}
	})
}
