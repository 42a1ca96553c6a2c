package store_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// tournamentEpoch is when the test tournaments are created.
var tournamentEpoch = time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)

// testTournament is a tournament created at tournamentEpoch with an hour of
// preparation and two of play, in the given state.
// seedTournamentsOfEachStatus looks up, at seen, an open tournament in
// preparation, one in progress and one ended (tags prefix+"0", "2", "8"),
// and stores one found only by search with searchedStatus (prefix+"9").
func seedTournamentsOfEachStatus(t *testing.T, db *store.Store, prefix, searchedStatus string, seen time.Time) (preparing, running, ended, searched models.TournamentDetails) {
	t.Helper()
	ctx := context.Background()
	preparing = testTournament(prefix+"0", models.TournamentTypeOpen, models.TournamentInPreparation, 1, 50)
	running = testTournament(prefix+"2", models.TournamentTypeOpen, models.TournamentInProgress, 1, 50)
	ended = testTournament(prefix+"8", models.TournamentTypeOpen, models.TournamentEnded, 1, 50)
	searched = testTournament(prefix+"9", models.TournamentTypeOpen, searchedStatus, 1, 50)
	for _, tournament := range []models.TournamentDetails{preparing, running, ended} {
		if err := db.SaveLookedUpTournament(ctx, tournament, seen); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SaveDiscoveredTournaments(ctx, []models.TournamentDetails{searched}, seen); err != nil {
		t.Fatal(err)
	}
	return preparing, running, ended, searched
}

func testTournament(tag, kind, status string, players, places int) models.TournamentDetails {
	t := models.TournamentDetails{
		Tag: tag, Type: kind, Status: status, Name: "Cup " + tag, Description: "about " + tag,
		Capacity: players, MaxCapacity: places, PreparationDuration: 3600, Duration: 7200,
		CreatedTime: tournamentEpoch,
	}
	if status != models.TournamentInPreparation {
		t.StartedTime = tournamentEpoch.Add(time.Hour)
	}
	if status == models.TournamentEnded {
		t.EndedTime = tournamentEpoch.Add(3 * time.Hour)
		t.EndedTimeRaw = "20260504T150000.000Z"
	}
	return t
}

// tagOf is the n-th test tag: valid game tag characters only.
func tagOf(n int) string {
	const digits = "0289CGJLPQRUVY"
	tag := []byte("2P")
	for range 3 {
		tag = append(tag, digits[n%len(digits)])
		n /= len(digits)
	}
	return string(tag)
}

func listTags(t *testing.T, db *store.Store, predicates ...models.TournamentPredicate) []string {
	t.Helper()
	records, err := db.ListTournaments(context.Background(), predicates, models.MaxTournamentListLength)
	if err != nil {
		t.Fatalf("list %v: %v", predicates, err)
	}
	tags := make([]string, len(records))
	for i, r := range records {
		tags[i] = r.Tag
	}
	return tags
}

func TestLookedUpTournamentIsStoredAsSeen(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		for i, want := range []models.TournamentDetails{
			testTournament(tagOf(1), models.TournamentTypeOpen, models.TournamentInPreparation, 3, 50),
			testTournament(tagOf(2), models.TournamentTypePasswordProtected, models.TournamentInProgress, 1000, 1000),
			testTournament(tagOf(3), models.TournamentTypeOpen, models.TournamentEnded, 7, 100),
		} {
			seen := tournamentEpoch.Add(time.Duration(i) * time.Minute)
			if err := db.SaveLookedUpTournament(ctx, want, seen); err != nil {
				t.Fatal(err)
			}
			records, err := db.ListTournaments(ctx, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			want.EndedTimeRaw = ""
			got := records[0]
			if len(records) != 1 || !got.UpdatedAt.Equal(seen) || fmt.Sprint(got.TournamentDetails) != fmt.Sprint(want) {
				t.Fatalf("stored %+v (updated %s),\nwant %+v (updated %s)", got.TournamentDetails, got.UpdatedAt, want, seen)
			}
		}
	})
}

func TestSearchResultsKeepKnownTimesAndReplaceTheRest(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		full := testTournament(tagOf(4), models.TournamentTypeOpen, models.TournamentInProgress, 10, 50)
		if err := db.SaveLookedUpTournament(ctx, full, tournamentEpoch.Add(90*time.Minute)); err != nil {
			t.Fatal(err)
		}
		header := full
		header.StartedTime, header.Capacity, header.Name = time.Time{}, 12, "renamed"
		later := tournamentEpoch.Add(100 * time.Minute)
		if err := db.SaveDiscoveredTournaments(ctx, []models.TournamentDetails{header, header}, later); err != nil {
			t.Fatal(err)
		}
		records, err := db.ListTournaments(ctx, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := records[0]
		if len(records) != 1 || !got.StartedTime.Equal(full.StartedTime) || got.Capacity != 12 || got.Name != "renamed" || !got.UpdatedAt.Equal(later) {
			t.Fatalf("after a search result: %d records, %+v", len(records), got)
		}
	})
}

// searchResult is the tournament as the game's search gives it: no start
// or end time.
func searchResult(tournament models.TournamentDetails) models.TournamentDetails {
	tournament.StartedTime, tournament.EndedTime, tournament.EndedTimeRaw = time.Time{}, time.Time{}, ""
	return tournament
}

// listedTimes is the start and end the lists show of tag.
func listedTimes(t *testing.T, db *store.Store, tag string) (start, end time.Time) {
	t.Helper()
	records, err := db.ListTournaments(context.Background(), nil, models.MaxTournamentListLength)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(records, func(r models.TournamentRecord) bool { return r.Tag == tag })
	if i < 0 {
		t.Fatalf("%s is not listed", tag)
	}
	return records[i].StartedTime, records[i].EndedTime
}

// A tournament only found by search is listed with the start and end it
// was due (created at epoch, an hour of preparation, two of play) once
// seen started or ended; a lookup's own times replace them, and a later
// search never brings them back.
func TestSearchedTournamentsAreListedWithTheirDueTimes(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		dueStart, dueEnd := tournamentEpoch.Add(time.Hour), tournamentEpoch.Add(3*time.Hour)
		running := testTournament("2PPJ0", models.TournamentTypeOpen, models.TournamentInProgress, 1, 50)
		ended := testTournament("2PPJ2", models.TournamentTypeOpen, models.TournamentEnded, 1, 50)
		early := testTournament("2PPJ8", models.TournamentTypeOpen, models.TournamentInProgress, 1, 50)
		// Later than they were due, as the game may report them.
		running.StartedTime = dueStart.Add(42 * time.Second)
		ended.StartedTime, ended.EndedTime = dueStart.Add(42*time.Second), dueEnd.Add(42*time.Second)

		search := func(at time.Time, found ...models.TournamentDetails) {
			t.Helper()
			for i := range found {
				found[i] = searchResult(found[i])
			}
			if err := db.SaveDiscoveredTournaments(ctx, found, at); err != nil {
				t.Fatal(err)
			}
		}
		lookUp := func(tournament models.TournamentDetails, at time.Time) {
			t.Helper()
			if err := db.SaveLookedUpTournament(ctx, tournament, at); err != nil {
				t.Fatal(err)
			}
		}
		check := func(step string, tournament models.TournamentDetails, wantStart, wantEnd time.Time) {
			t.Helper()
			start, end := listedTimes(t, db, tournament.Tag)
			if !start.Equal(wantStart) || !end.Equal(wantEnd) {
				t.Errorf("%s: %s listed from %v to %v, want from %v to %v", step, tournament.Tag, start, end, wantStart, wantEnd)
			}
		}

		// Seen in progress before it was due to start (the game's clock
		// ahead of ours): its start stays unknown.
		search(dueStart.Add(-time.Second), early)
		check("seen started early", early, time.Time{}, time.Time{})
		search(dueStart.Add(90*time.Second), early)
		check("seen started after its due start", early, dueStart, time.Time{})

		search(dueEnd.Add(5*time.Minute), running, ended)
		check("found in progress", running, dueStart, time.Time{})
		check("found ended", ended, dueStart, dueEnd)

		lookUp(running, dueEnd.Add(6*time.Minute))
		lookUp(ended, dueEnd.Add(6*time.Minute))
		check("looked up in progress", running, running.StartedTime, time.Time{})
		check("looked up ended", ended, ended.StartedTime, ended.EndedTime)

		search(dueEnd.Add(20*time.Minute), running, ended)
		check("found again in progress", running, running.StartedTime, time.Time{})
		check("found again ended", ended, ended.StartedTime, ended.EndedTime)

		// Ended and stored with a start but no end: listed ended its
		// duration after the stored start.
		noEnd := ended
		noEnd.Tag, noEnd.EndedTime, noEnd.EndedTimeRaw = "2PPJ9", time.Time{}, ""
		lookUp(noEnd, dueEnd.Add(21*time.Minute))
		check("looked up ended without an end", noEnd, noEnd.StartedTime, noEnd.StartedTime.Add(2*time.Hour))
	})
}

func TestSearchResultsNeverMoveALookedUpStatus(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		// Looked up at epoch+30m: preparing (due to start at epoch+1h),
		// running (due to end at epoch+3h) and ended; and one only found
		// by search, in preparation.
		seen := tournamentEpoch.Add(30 * time.Minute)
		preparing, running, ended, searched := seedTournamentsOfEachStatus(t, db, "2PPG", models.TournamentInPreparation, seen)
		claim := func(owner string, at time.Time) []string { return claimRefreshes(t, db, owner, at) }
		if got := claim("a", seen.Add(time.Minute)); !slices.Equal(got, []string{"2PPG9"}) {
			t.Fatalf("before the search, claimed %v", got)
		}
		stored := func() map[string]models.TournamentRecord {
			t.Helper()
			records, err := db.ListTournaments(ctx, nil, 10)
			if err != nil {
				t.Fatal(err)
			}
			byTag := make(map[string]models.TournamentRecord, len(records))
			for _, r := range records {
				byTag[r.Tag] = r
			}
			return byTag
		}
		before := stored()

		// At epoch+40m a search reports each one a status on (or, for the
		// ended one, back), with no times and more players.
		header := func(tournament models.TournamentDetails, status string) models.TournamentDetails {
			tournament.Status, tournament.Capacity = status, 5
			tournament.StartedTime, tournament.EndedTime, tournament.EndedTimeRaw = time.Time{}, time.Time{}, ""
			return tournament
		}
		search := []models.TournamentDetails{
			header(preparing, models.TournamentInProgress),
			header(running, models.TournamentEnded),
			header(ended, models.TournamentInProgress),
			header(searched, models.TournamentEnded),
		}
		searchedAt := tournamentEpoch.Add(40 * time.Minute)
		if err := db.SaveDiscoveredTournaments(ctx, search, searchedAt); err != nil {
			t.Fatal(err)
		}
		after := stored()
		for _, tag := range []string{"2PPG0", "2PPG2", "2PPG8"} {
			if fmt.Sprint(after[tag]) != fmt.Sprint(before[tag]) {
				t.Errorf("the search changed %s, looked up in full:\n%+v\nwas %+v", tag, after[tag], before[tag])
			}
		}
		if got := after["2PPG9"]; got.Status != models.TournamentEnded || got.Capacity != 5 || !got.UpdatedAt.Equal(searchedAt) {
			t.Errorf("the search did not replace 2PPG9, only ever found by search: %+v", got)
		}
		// The looked-up ones that have not ended are due at once, before
		// their status was expected to move on; a search does not end
		// the lease of one so claimed.
		if got := claim("b", searchedAt.Add(time.Minute)); !slices.Equal(got, []string{"2PPG0", "2PPG2", "2PPG9"}) {
			t.Fatalf("after the search, claimed %v", got)
		}
		if err := db.SaveDiscoveredTournaments(ctx, search[:3], searchedAt.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got := claim("c", searchedAt.Add(3*time.Minute)); len(got) != 0 {
			t.Fatalf("within the leases, a second search made %v claimable", got)
		}

		// The lookup moves status and times together, and then a search
		// reporting the same status is stored as usual.
		lookedUp := testTournament("2PPG2", models.TournamentTypeOpen, models.TournamentEnded, 1, 50)
		lookedUpAt := searchedAt.Add(4 * time.Minute)
		if err := db.SaveLookedUpTournament(ctx, lookedUp, lookedUpAt); err != nil {
			t.Fatal(err)
		}
		if got := stored()["2PPG2"]; got.Status != models.TournamentEnded || !got.StartedTime.Equal(lookedUp.StartedTime) ||
			!got.EndedTime.Equal(lookedUp.EndedTime) || !got.UpdatedAt.Equal(lookedUpAt) {
			t.Fatalf("after the lookup: %+v", got)
		}
		if err := db.SaveDiscoveredTournaments(ctx, []models.TournamentDetails{header(running, models.TournamentEnded)}, lookedUpAt.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got := stored()["2PPG2"]; got.Capacity != 5 || !got.EndedTime.Equal(lookedUp.EndedTime) || !got.UpdatedAt.Equal(lookedUpAt.Add(time.Minute)) {
			t.Fatalf("a search agreeing with the lookup: %+v", got)
		}
	})
}

// predicateOracle says, independently of the SQL, whether a predicate
// holds for a tournament.
func predicateOracle(p models.TournamentPredicate, t models.TournamentDetails) bool {
	switch p {
	case models.TournamentThousand:
		return t.MaxCapacity == 1000
	case models.TournamentOpen:
		return t.Type == models.TournamentTypeOpen
	case models.TournamentFull:
		return t.Capacity == t.MaxCapacity
	case models.TournamentInPrep:
		return t.Status == models.TournamentInPreparation
	case models.TournamentJoinable:
		// Not ended: a status that says so, which an unknown one does not.
		notEnded := t.Status == models.TournamentInPreparation || t.Status == models.TournamentInProgress
		return t.Type == models.TournamentTypeOpen && t.Capacity < t.MaxCapacity && notEnded
	}
	panic("unknown predicate " + p)
}

func TestListsMeetEveryPredicateNewestFirst(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		// Every combination of size, type (unknown too), fullness and
		// status (unknown too), each seen a minute after the previous one;
		// every third one requested.
		var all []models.TournamentDetails
		requested := map[string]bool{}
		for _, places := range []int{50, 1000} {
			for _, kind := range []string{models.TournamentTypeOpen, models.TournamentTypePasswordProtected, models.TournamentTypeUnknown} {
				for _, players := range []int{places, places / 2} {
					for _, status := range []string{models.TournamentInPreparation, models.TournamentInProgress, models.TournamentEnded, models.TournamentStatusUnknown} {
						tournament := testTournament(tagOf(len(all)), kind, status, players, places)
						save := db.SaveLookedUpTournament
						if len(all)%3 == 0 {
							save, requested[tournament.Tag] = db.SaveRequestedTournament, true
						}
						if err := save(ctx, tournament, tournamentEpoch.Add(time.Duration(len(all))*time.Minute)); err != nil {
							t.Fatal(err)
						}
						all = append(all, tournament)
					}
				}
			}
		}
		holds := func(p models.TournamentPredicate, tournament models.TournamentDetails) bool {
			if p == models.TournamentKnown {
				return requested[tournament.Tag]
			}
			return predicateOracle(p, tournament)
		}
		expect := func(predicates ...models.TournamentPredicate) []string {
			tags := []string{}
			for _, tournament := range slices.Backward(all) {
				meets := true
				for _, p := range predicates {
					meets = meets && holds(p, tournament)
				}
				if meets {
					tags = append(tags, tournament.Tag)
				}
			}
			return tags
		}
		check := func(predicates ...models.TournamentPredicate) {
			t.Helper()
			got, want := listTags(t, db, predicates...), expect(predicates...)
			if !slices.Equal(got, want) {
				t.Errorf("%v: got %v, want %v", predicates, got, want)
			}
		}
		check()
		predicates := append([]models.TournamentPredicate{models.TournamentKnown}, models.TournamentFilters()...)
		for i, p := range predicates {
			if n := len(expect(p)); n == 0 || n == len(all) {
				t.Fatalf("in the fixture %s holds for %d of %d tournaments", p, n, len(all))
			}
			check(p)
			for j, q := range predicates[i+1:] {
				check(p, q)
				for _, r := range predicates[i+j+2:] {
					check(p, q, r)
				}
			}
		}
		if _, err := db.ListTournaments(ctx, []models.TournamentPredicate{"tiny"}, 10); err == nil {
			t.Error("an unknown predicate was accepted")
		}
	})
}

func TestOnlyRequestedTournamentsAreKnown(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		found := testTournament(tagOf(1), models.TournamentTypeOpen, models.TournamentInPreparation, 3, 50)
		if err := db.SaveDiscoveredTournaments(ctx, []models.TournamentDetails{found}, tournamentEpoch); err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			name  string
			save  func() error
			known bool
		}{
			{"found by search", func() error { return nil }, false},
			{"refreshed by the scheduler", func() error {
				return db.SaveLookedUpTournament(ctx, found, tournamentEpoch.Add(time.Minute))
			}, false},
			{"looked up by a client", func() error {
				return db.SaveRequestedTournament(ctx, found, tournamentEpoch.Add(2*time.Minute))
			}, true},
			{"refreshed again", func() error {
				return db.SaveLookedUpTournament(ctx, found, tournamentEpoch.Add(3*time.Minute))
			}, true},
			{"found by search again", func() error {
				return db.SaveDiscoveredTournaments(ctx, []models.TournamentDetails{found}, tournamentEpoch.Add(4*time.Minute))
			}, true},
		}
		for _, step := range steps {
			if err := step.save(); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			if known := slices.Contains(listTags(t, db, models.TournamentKnown), found.Tag); known != step.known {
				t.Fatalf("%s: known %v, want %v", step.name, known, step.known)
			}
			if open := listTags(t, db, models.TournamentOpen); !slices.Equal(open, []string{found.Tag}) {
				t.Fatalf("%s: open list %v", step.name, open)
			}
		}
	})
}

// A client's lookup written late (after its first write failed) does not
// take the stored tournament back in time, but still makes it known.
func TestALateWriteOfALookupKeepsTheNewerSighting(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		running := testTournament(tagOf(1), models.TournamentTypeOpen, models.TournamentInProgress, 10, 50)
		ended := testTournament(tagOf(1), models.TournamentTypeOpen, models.TournamentEnded, 12, 50)
		if err := db.SaveLookedUpTournament(ctx, ended, tournamentEpoch.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveRequestedTournament(ctx, running, tournamentEpoch); err != nil {
			t.Fatal(err)
		}
		records, err := db.ListTournaments(ctx, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 1 || records[0].Status != models.TournamentEnded || records[0].Capacity != 12 ||
			!records[0].UpdatedAt.Equal(tournamentEpoch.Add(2*time.Minute)) {
			t.Fatalf("stored %+v, want the newer sighting (ended, 12 players) kept", records)
		}
		if known := listTags(t, db, models.TournamentKnown); !slices.Equal(known, []string{running.Tag}) {
			t.Fatalf("known %v, want the looked-up tournament", known)
		}
	})
}

// A refresher's lookup is written even when a search on a replica whose
// clock runs ahead stored a later sighting meanwhile: only a client's
// late write gives way, and only to a newer full lookup.
func TestARefreshLandsOverASearchFromAClockAhead(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		preparing := testTournament(tagOf(1), models.TournamentTypeOpen, models.TournamentInPreparation, 10, 50)
		running := testTournament(tagOf(1), models.TournamentTypeOpen, models.TournamentInProgress, 11, 50)
		if err := db.SaveLookedUpTournament(ctx, preparing, tournamentEpoch); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveDiscoveredTournaments(ctx, []models.TournamentDetails{preparing}, tournamentEpoch.Add(2*time.Minute+time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := db.SaveLookedUpTournament(ctx, running, tournamentEpoch.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		records, err := db.ListTournaments(ctx, nil, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != 1 || records[0].Status != models.TournamentInProgress || records[0].Capacity != 11 {
			t.Fatalf("stored %+v, want the refresher's lookup (in progress, 11 players)", records)
		}
	})
}

func TestListsHoldAtMostAHundred(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		var found []models.TournamentDetails
		for n := range 130 {
			found = append(found, testTournament(tagOf(n), models.TournamentTypeOpen, models.TournamentInProgress, 1, 50))
		}
		if err := db.SaveDiscoveredTournaments(ctx, found, tournamentEpoch); err != nil {
			t.Fatal(err)
		}
		records, err := db.ListTournaments(ctx, nil, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(records) != models.MaxTournamentListLength {
			t.Fatalf("%d records, want %d", len(records), models.MaxTournamentListLength)
		}
		if !slices.IsSortedFunc(records, func(a, b models.TournamentRecord) int { return cmp.Compare(a.Tag, b.Tag) }) {
			t.Fatal("records seen at the same time are not in tag order")
		}
	})
}

func TestRefreshClaimsTakeDueTournamentsOnce(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		// Seen at epoch+30m: preparing (due to start at epoch+1h), running
		// (due to end at epoch+3h), ended, and one only found by search.
		seen := tournamentEpoch.Add(30 * time.Minute)
		preparing, _, _, _ := seedTournamentsOfEachStatus(t, db, "2PPA", models.TournamentEnded, seen)
		claim := func(owner string, at time.Time, limit int) []string {
			t.Helper()
			tags, err := db.ClaimTournamentRefreshes(ctx, models.TournamentRefreshClaim{
				Owner: owner, Now: at, StaleAfter: time.Hour, Lease: 5 * time.Minute, Limit: limit,
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(tags)
			return tags
		}
		steps := []struct {
			name  string
			owner string
			at    time.Time
			limit int
			want  []string
		}{
			{"only the search result is due at first", "a", tournamentEpoch.Add(31 * time.Minute), 10, []string{"2PPA9"}},
			{"a leased tournament is not claimed again", "b", tournamentEpoch.Add(32 * time.Minute), 10, nil},
			{"the lease ends", "b", tournamentEpoch.Add(37 * time.Minute), 10, []string{"2PPA9"}},
			{"the start is due, limited to one", "a", tournamentEpoch.Add(61 * time.Minute), 1, []string{"2PPA0"}},
			{"the search result again", "b", tournamentEpoch.Add(62 * time.Minute), 10, []string{"2PPA9"}},
			{"stale, and the leases ended; never the ended one", "a", tournamentEpoch.Add(91 * time.Minute), 10, []string{"2PPA0", "2PPA2", "2PPA9"}},
		}
		for _, step := range steps {
			if got := claim(step.owner, step.at, step.limit); !slices.Equal(got, step.want) {
				t.Fatalf("%s: claimed %v, want %v", step.name, got, step.want)
			}
		}
		// Saving releases the lease; a tournament seen after its status
		// was due is not due again until it is stale.
		refreshedAt := tournamentEpoch.Add(92 * time.Minute)
		if err := db.SaveLookedUpTournament(ctx, preparing, refreshedAt); err != nil {
			t.Fatal(err)
		}
		if got := claim("c", refreshedAt.Add(time.Minute), 10); len(got) != 0 {
			t.Fatalf("after saving, claimed %v", got)
		}
		if got := claim("c", refreshedAt.Add(time.Hour), 10); !slices.Equal(got, []string{"2PPA0", "2PPA2", "2PPA9"}) {
			t.Fatalf("an hour later, claimed %v", got)
		}
	})
}

// claimRefreshes claims, for owner at at, up to ten due tournaments
// unseen for an hour, each for five minutes, and returns their tags in
// order.
func claimRefreshes(t *testing.T, db *store.Store, owner string, at time.Time) []string {
	t.Helper()
	tags, err := db.ClaimTournamentRefreshes(context.Background(), models.TournamentRefreshClaim{
		Owner: owner, Now: at, StaleAfter: time.Hour, Lease: 5 * time.Minute, Limit: 10,
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(tags)
	return tags
}

// TestAReleasedRefreshIsDueAtOnce: a lookup its owner gives back (cut by
// a shutdown) may be claimed again at once, by any replica; another
// owner's release leaves the lease where it is.
func TestAReleasedRefreshIsDueAtOnce(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		seen := tournamentEpoch.Add(30 * time.Minute)
		seedTournamentsOfEachStatus(t, db, "2PPA", models.TournamentEnded, seen)
		claim := func(owner string, at time.Time) []string { return claimRefreshes(t, db, owner, at) }
		at := tournamentEpoch.Add(31 * time.Minute)
		if got := claim("a", at); !slices.Equal(got, []string{"2PPA9"}) {
			t.Fatalf("first claim: %v", got)
		}
		if err := db.ReleaseTournamentRefresh(ctx, "2PPA9", "b"); err != nil {
			t.Fatal(err)
		}
		if got := claim("b", at); len(got) != 0 {
			t.Fatalf("after another owner's release, claimed %v: the lease is a's", got)
		}
		if err := db.ReleaseTournamentRefresh(ctx, "2PPA9", "a"); err != nil {
			t.Fatal(err)
		}
		if got := claim("b", at); !slices.Equal(got, []string{"2PPA9"}) {
			t.Fatalf("after its owner's release, claimed %v, want it at once", got)
		}
	})
}

func TestPruneAndDeleteForgetTournaments(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		ended := testTournament("2PPC0", models.TournamentTypeOpen, models.TournamentEnded, 1, 50) // ended at epoch+3h
		running := testTournament("2PPC2", models.TournamentTypeOpen, models.TournamentInProgress, 1, 50)
		gone := testTournament("2PPC8", models.TournamentTypeOpen, models.TournamentInProgress, 1, 50)
		for _, tournament := range []models.TournamentDetails{ended, running, gone} {
			if err := db.SaveLookedUpTournament(ctx, tournament, tournamentEpoch.Add(5*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.DeleteTournament(ctx, "2PPC8"); err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteTournament(ctx, "2PPC9"); err != nil {
			t.Fatalf("deleting an unknown tag: %v", err)
		}
		for _, step := range []struct {
			cutoff time.Time
			pruned int64
			left   []string
		}{
			{tournamentEpoch.Add(3 * time.Hour), 0, []string{"2PPC0", "2PPC2"}},
			{tournamentEpoch.Add(4 * time.Hour), 1, []string{"2PPC2"}},
			{tournamentEpoch.Add(6 * time.Hour), 1, nil},
		} {
			pruned, err := db.PruneTournaments(ctx, step.cutoff)
			if err != nil {
				t.Fatal(err)
			}
			if left := listTags(t, db); pruned != step.pruned || !slices.Equal(left, step.left) {
				t.Fatalf("cutoff %s: pruned %d, left %v; want %d, %v", step.cutoff, pruned, left, step.pruned, step.left)
			}
		}
	})
}

func TestPeriodicTaskIsClaimedOncePerPeriod(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		for _, step := range []struct {
			name, task, owner string
			at                time.Duration
			want              bool
		}{
			{"first run", "search", "a", 0, true},
			{"another replica in the same period", "search", "b", time.Minute, false},
			{"another task is independent", "prune", "b", time.Minute, true},
			{"the next period", "search", "b", 10 * time.Minute, true},
			{"the first replica in that period", "search", "a", 11 * time.Minute, false},
			// A clock that ran a day ahead claims that day's period...
			{"a clock a day ahead", "search", "a", 24 * time.Hour, true},
			// ...which, once the clock is back, is no period of a clock
			// behind by less than one: counting starts again from now.
			{"the clock back", "search", "b", 21 * time.Minute, true},
			{"the clock back, in the same period", "search", "a", 22 * time.Minute, false},
			{"a clock behind by less than a period", "search", "a", 12 * time.Minute, false},
		} {
			got, err := db.ClaimPeriodicTask(ctx, step.task, step.owner, tournamentEpoch.Add(step.at), 10*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if got != step.want {
				t.Fatalf("%s: claimed %v, want %v", step.name, got, step.want)
			}
		}
	})
}

// TestReleasedPeriodicTaskIsDueAgain: a claim whose work failed, given
// back by its owner, is claimed again at once; a release by another
// owner, or of a claim taken over since, changes nothing.
func TestReleasedPeriodicTaskIsDueAgain(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		every := 10 * time.Minute
		claim := func(owner string, at time.Duration) bool {
			t.Helper()
			got, err := db.ClaimPeriodicTask(ctx, "search", owner, tournamentEpoch.Add(at), every)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		release := func(owner string, claimedAt time.Duration) {
			t.Helper()
			if err := db.ReleasePeriodicTask(ctx, "search", owner, tournamentEpoch.Add(claimedAt), every); err != nil {
				t.Fatal(err)
			}
		}
		if !claim("a", 0) {
			t.Fatal("first claim refused")
		}
		release("b", 0)
		if claim("b", time.Minute) {
			t.Fatal("another owner's release gave back a's claim")
		}
		release("a", 0)
		if !claim("b", time.Minute) {
			t.Fatal("the released task is not due again")
		}
		release("a", 0) // a's claim was taken over: nothing to give back
		if claim("a", 2*time.Minute) {
			t.Fatal("a release of a claim taken over gave back the new one")
		}
	})
}

func TestASightingInTheSecondTheStatusIsDueLeavesItDue(t *testing.T) {
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		claim := func(at time.Time) []string {
			t.Helper()
			tags, err := db.ClaimTournamentRefreshes(ctx, models.TournamentRefreshClaim{
				Owner: "a", Now: at, StaleAfter: time.Hour, Lease: 5 * time.Minute, Limit: 10,
			})
			if err != nil {
				t.Fatal(err)
			}
			return tags
		}
		save := func(tournament models.TournamentDetails, at time.Time) {
			t.Helper()
			if err := db.SaveLookedUpTournament(ctx, tournament, at); err != nil {
				t.Fatal(err)
			}
		}
		// Looked up at epoch+30m10s, in preparation, and in the same
		// second a search reports it started: the search makes it due at
		// once.
		moved := testTournament("2PPJ2", models.TournamentTypeOpen, models.TournamentInPreparation, 1, 50)
		lookedUpAt := tournamentEpoch.Add(30*time.Minute + 10*time.Second)
		save(moved, lookedUpAt)
		search := moved
		search.Status = models.TournamentInProgress
		if err := db.SaveDiscoveredTournaments(ctx, []models.TournamentDetails{search}, lookedUpAt.Add(500*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if got := claim(lookedUpAt.Add(30 * time.Second)); !slices.Equal(got, []string{"2PPJ2"}) {
			t.Fatalf("a tick after the search, claimed %v; want 2PPJ2", got)
		}
		save(moved, lookedUpAt.Add(31*time.Second))

		// Looked up in the very second its preparation ends (epoch+1h),
		// before the game moved it on: that sighting cannot tell whether
		// it started, so the next tick looks again.
		dueStart := tournamentEpoch.Add(time.Hour)
		preparing := testTournament("2PPJ0", models.TournamentTypeOpen, models.TournamentInPreparation, 1, 50)
		save(preparing, dueStart.Add(400*time.Millisecond))
		save(moved, dueStart.Add(400*time.Millisecond))
		if got := claim(dueStart.Add(30 * time.Second)); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"2PPJ0", "2PPJ2"}) {
			t.Fatalf("a tick after the due start, claimed %v; want both", got)
		}
		// Once looked up after that second, neither is due before it is
		// stale.
		later := dueStart.Add(31 * time.Second)
		save(preparing, later)
		save(moved, later)
		if got := claim(later.Add(30 * time.Second)); len(got) != 0 {
			t.Fatalf("after the lookups, claimed %v", got)
		}
	})
}
