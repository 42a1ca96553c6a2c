package scheduler_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
	"github.com/crownsdev/crowns/scheduler"
	"github.com/crownsdev/crowns/upstream"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// tournamentStart is when the tournament tests begin.
var tournamentStart = time.Date(2026, 6, 15, 14, 20, 0, 0, time.UTC)

// tournamentUpstream is the sandbox world behind the real upstream client
// over HTTP, counting requests per path and query, and failing the
// lookups of chosen tags with 503.
type tournamentUpstream struct {
	clock  *models.ManualClock
	world  *sandbox.World
	client *upstream.Client

	// onSearch, when set, is called at the first search request.
	onSearch   func()
	searchOnce sync.Once

	mu       sync.Mutex
	requests map[string]int
	failing  map[string]bool
	// onLookup, when set, is called with each lookup request before it is
	// answered.
	onLookup func(*http.Request)
}

func newTournamentUpstream(t *testing.T, clock *models.ManualClock) *tournamentUpstream {
	t.Helper()
	u := &tournamentUpstream{
		clock:    clock,
		world:    sandbox.NewWorld(sandbox.Config{Clock: clock, Clans: 300}),
		requests: map[string]int{},
		failing:  map[string]bool{},
	}
	server := httptest.NewServer(u.intercept(u.world.Handler()))
	t.Cleanup(server.Close)
	client, err := upstream.New(upstream.Config{BaseURL: server.URL + "/v1", Token: "test", Timeout: 5 * time.Second,
		MaxAttempts: 1, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	u.client = client
	return u
}

func (u *tournamentUpstream) intercept(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.URL.EscapedPath()
		if r.URL.RawQuery != "" {
			key += "?" + r.URL.Query().Get("name")
			if u.onSearch != nil {
				u.searchOnce.Do(u.onSearch)
			}
		}
		u.mu.Lock()
		u.requests[key]++
		failing := u.failing[key]
		onLookup := u.onLookup
		u.mu.Unlock()
		if onLookup != nil && strings.HasPrefix(key, "/v1/tournaments/") {
			onLookup(r)
		}
		if failing {
			http.Error(w, `{"reason":"inMaintenance"}`, http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// lookups counts the full lookups of tag.
func (u *tournamentUpstream) lookups(tag string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.requests["/v1/tournaments/%23"+tag]
}

// searches counts the searches for term.
func (u *tournamentUpstream) searches(term string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.requests["/v1/tournaments?"+term]
}

// interceptLookups calls fn with each lookup request before it is
// answered (nil: none).
func (u *tournamentUpstream) interceptLookups(fn func(*http.Request)) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.onLookup = fn
}

// failLookups makes the lookups of tag answer 503 (or not).
func (u *tournamentUpstream) failLookups(tag string, failing bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.failing["/v1/tournaments/%23"+tag] = failing
}

// tournament is the tournament as the upstream answers it now.
func (u *tournamentUpstream) tournament(t *testing.T, tag string) models.TournamentDetails {
	t.Helper()
	details, err := u.client.Tournament(context.Background(), tag)
	if err != nil {
		t.Fatalf("upstream tournament %s: %v", tag, err)
	}
	return details
}

// preparingTournament is a tournament of the sandbox in preparation now,
// as the upstream answers it.
func (u *tournamentUpstream) preparingTournament(t *testing.T) models.TournamentDetails {
	t.Helper()
	for _, tag := range u.world.TournamentTags() {
		if details := u.tournament(t, tag); details.Status == models.TournamentInPreparation {
			return details
		}
	}
	t.Fatal("no tournament in preparation in the sandbox")
	return models.TournamentDetails{}
}

// lookedUpPreparingTournament is preparingTournament, stored in db as
// looked up in full by a client of the API at the upstream clock's time.
func (u *tournamentUpstream) lookedUpPreparingTournament(t *testing.T, db *store.Store) models.TournamentDetails {
	t.Helper()
	preparing := u.preparingTournament(t)
	if err := db.SaveRequestedTournament(context.Background(), preparing, u.clock.Now()); err != nil {
		t.Fatal(err)
	}
	return preparing
}

// noSearchTerms finds nothing in the sandbox: for tests that decide
// themselves which tournaments are known.
var noSearchTerms = []string{"zzzzzz"}

// tournamentRefresherConfig is a refresher configuration for tests: an
// explicit owner and search terms, generous per-tick budget.
func tournamentRefresherConfig(clock models.Clock, owner string, terms []string) scheduler.TournamentRefresherConfig {
	return scheduler.TournamentRefresherConfig{
		SearchTerms:      terms,
		RefreshPerMinute: 2000,
		RefreshInterval:  10 * time.Minute,
		Lease:            2 * time.Minute,
		UpstreamTimeout:  10 * time.Second,
		Owner:            owner,
		Clock:            clock,
	}
}

func newTournamentRefresher(t *testing.T, db *store.Store, u *tournamentUpstream, cfg scheduler.TournamentRefresherConfig) *scheduler.TournamentRefresher {
	t.Helper()
	refresher, err := scheduler.NewTournamentRefresher(db, u.client, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return refresher
}

func tickTournaments(t *testing.T, refresher *scheduler.TournamentRefresher) scheduler.TournamentTickReport {
	t.Helper()
	report, err := refresher.Tick(context.Background())
	if err != nil {
		t.Fatalf("tick: %v", err)
	}
	return report
}

// listedTags lists the tags of the stored tournaments for which every
// predicate holds, most recently updated first.
func listedTags(t *testing.T, db *store.Store, predicates ...models.TournamentPredicate) []string {
	t.Helper()
	records, err := db.ListTournaments(context.Background(), predicates, models.MaxTournamentListLength)
	if err != nil {
		t.Fatal(err)
	}
	tags := make([]string, len(records))
	for i, r := range records {
		tags[i] = r.Tag
	}
	return tags
}

// storedRow is what the tests read of a stored tournament.
type storedRow struct {
	Status    string
	StartTime *int64
	EndTime   *int64
	UpdatedAt int64
}

// storedTournament is the stored row of tag; ok is false when unknown.
func storedTournament(t *testing.T, db *store.Store, tag string) (row storedRow, ok bool) {
	t.Helper()
	var rows []storedRow
	err := storetest.SQL(t, db).WithContext(context.Background()).Raw(`SELECT status, start_time, end_time, updated_at FROM tournaments WHERE tag = ?`, tag).Scan(&rows).Error
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		return storedRow{}, false
	}
	return rows[0], true
}

// storedTags is every stored tag, whatever the list limit.
func storedTags(t *testing.T, db *store.Store) map[string]bool {
	t.Helper()
	var tags []string
	if err := storetest.SQL(t, db).WithContext(context.Background()).Raw(`SELECT tag FROM tournaments`).Scan(&tags).Error; err != nil {
		t.Fatal(err)
	}
	set := make(map[string]bool, len(tags))
	for _, tag := range tags {
		set[tag] = true
	}
	return set
}

// openTournamentReplicas opens n stores on one fresh database of engine,
// as n processes would.
func openTournamentReplicas(t *testing.T, engine store.Dialect, n int) []*store.Store {
	t.Helper()
	cfg := storetest.Config(t, engine)
	stores := make([]*store.Store, n)
	for i := range stores {
		db, err := store.Open(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		if _, err := db.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		stores[i] = db
	}
	return stores
}
