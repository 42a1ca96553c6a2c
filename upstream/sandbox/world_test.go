package sandbox_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/official"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

// start is a Sunday afternoon, so that a few hours later the weekly
// counters reset.
var start = time.Date(2024, 3, 10, 14, 30, 0, 0, time.UTC)

// testClans keeps test worlds small and quick.
const testClans = 400

type fixture struct {
	world  *sandbox.World
	clock  *models.ManualClock
	server *httptest.Server
}

func newFixture(t *testing.T, cfg sandbox.Config) fixture {
	t.Helper()
	clock := models.NewManualClock(start)
	if cfg.Clock == nil {
		cfg.Clock = clock
	}
	if cfg.Clans == 0 {
		cfg.Clans = testClans
	}
	world := sandbox.NewWorld(cfg)
	server := httptest.NewServer(world.Handler())
	t.Cleanup(server.Close)
	return fixture{world: world, clock: clock, server: server}
}

// get fetches a /v1 path with a Bearer token and returns status and body.
func (f fixture) get(t *testing.T, path string) (int, []byte) {
	t.Helper()
	return f.getWith(t, path, "Bearer any-token-at-all")
}

func (f fixture) getWith(t *testing.T, path, authorization string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.server.URL+"/v1"+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := f.server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// decode fetches path, insists on a 200 and decodes the body.
func decode[T any](t *testing.T, f fixture, path string) T {
	t.Helper()
	status, body := f.get(t, path)
	if status != http.StatusOK {
		t.Fatalf("GET %s: status %d, body %s", path, status, body)
	}
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return v
}

func clanPath(tag string) string   { return "/clans/%23" + tag }
func playerPath(tag string) string { return "/players/%23" + tag }

func TestSameSeedAndTimeAnswerTheSameBytes(t *testing.T) {
	a := newFixture(t, sandbox.Config{Seed: 7})
	b := newFixture(t, sandbox.Config{Seed: 7})
	other := newFixture(t, sandbox.Config{Seed: 8})
	clan, player := a.world.ClanTags()[3], a.world.PlayerTags()[2]
	tournaments := a.world.TournamentTags()
	paths := []string{
		"/clans?name=royal&limit=20",
		"/clans?minMembers=40&minScore=10000",
		clanPath(clan),
		clanPath(clan) + "/members",
		playerPath(player),
		playerPath(player) + "/battlelog",
		"/tournaments?name=cup",
		"/tournaments/%23" + tournaments[len(tournaments)/2],
		"/cards",
		"/locations",
	}
	for _, path := range paths {
		_, first := a.get(t, path)
		_, second := b.get(t, path)
		if !bytes.Equal(first, second) {
			t.Errorf("GET %s: two worlds of one seed differ", path)
		}
	}
	_, mine := a.get(t, "/clans?name=royal&limit=20")
	_, theirs := other.get(t, "/clans?name=royal&limit=20")
	if bytes.Equal(mine, theirs) {
		t.Error("worlds of different seeds answer the same search")
	}
}

// TestEverySeedsTagsLeadBackToTheirEntities: whatever the seed (crowns
// sandbox --seed), each clan, player and tournament tag the world lists
// is its own: a lookup by it answers that entity, and no two share a tag.
func TestEverySeedsTagsLeadBackToTheirEntities(t *testing.T) {
	for seed := int64(1); seed <= 30; seed++ {
		f := newFixture(t, sandbox.Config{Seed: seed, Clans: 40})
		seen := map[string]bool{}
		for _, tag := range f.world.ClanTags() {
			if seen[tag] {
				t.Fatalf("seed %d: two clans share the tag %s", seed, tag)
			}
			seen[tag] = true
		}
		for _, tag := range f.world.ClanTags()[:5] {
			if clan := decode[official.Clan](t, f, clanPath(tag)); clan.Tag != "#"+tag {
				t.Fatalf("seed %d: clan %s answered as %q", seed, tag, clan.Tag)
			}
		}
		for _, tag := range f.world.PlayerTags()[:5] {
			if status, _ := f.get(t, playerPath(tag)); status != http.StatusOK {
				t.Fatalf("seed %d: player %s answered %d", seed, tag, status)
			}
		}
		for _, tag := range f.world.TournamentTags()[:5] {
			if status, _ := f.get(t, "/tournaments/%23"+tag); status != http.StatusOK {
				t.Fatalf("seed %d: tournament %s answered %d", seed, tag, status)
			}
		}
	}
}

// TestAPlayersProfileFollowsTheInjectedClock: the world is a function of
// its seed and of the clock it was given, the player profile included:
// moved days on, the clock changes the profile; moved back, it answers
// the first bytes again.
func TestAPlayersProfileFollowsTheInjectedClock(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	path := playerPath(f.world.PlayerTags()[2])
	_, before := f.get(t, path)
	f.clock.Advance(72 * time.Hour)
	_, later := f.get(t, path)
	if bytes.Equal(before, later) {
		t.Fatal("the profile did not change in three days of the world's clock")
	}
	f.clock.Set(start)
	if _, again := f.get(t, path); !bytes.Equal(before, again) {
		t.Fatal("the profile at the same clock time differs")
	}
}

func TestClanStatsEvolveWithTheClock(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	tag := busiestClan(t, f)
	before := decode[official.Clan](t, f, clanPath(tag))
	f.clock.Advance(4 * time.Hour)
	after := decode[official.Clan](t, f, clanPath(tag))
	if before.Members != after.Members || len(after.MemberList) != after.Members {
		t.Fatalf("membership changed: %d then %d members", before.Members, after.Members)
	}
	changed := 0
	for i := range before.MemberList {
		b, a := memberByTag(before.MemberList, before.MemberList[i].Tag), memberByTag(after.MemberList, before.MemberList[i].Tag)
		if b.Trophies != a.Trophies || b.Donations != a.Donations || *b.ClanChestPoints != *a.ClanChestPoints {
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no member's trophies, donations or chest points moved in 4 hours")
	}
	if before.ClanScore == after.ClanScore && before.DonationsPerWeek == after.DonationsPerWeek {
		t.Error("clan score and weekly donations did not move in 4 hours")
	}
	for rank, m := range after.MemberList {
		if m.ClanRank != rank+1 || (rank > 0 && m.Trophies > after.MemberList[rank-1].Trophies) {
			t.Fatalf("member %d: rank %d with %d trophies is out of order", rank, m.ClanRank, m.Trophies)
		}
	}
}

func TestDonationsResetOnMonday(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	tag := busiestClan(t, f)
	f.clock.Set(time.Date(2024, 3, 10, 23, 0, 0, 0, time.UTC)) // Sunday night
	sunday := decode[official.Clan](t, f, clanPath(tag))
	f.clock.Set(time.Date(2024, 3, 11, 1, 0, 0, 0, time.UTC)) // Monday morning
	monday := decode[official.Clan](t, f, clanPath(tag))
	if monday.DonationsPerWeek >= sunday.DonationsPerWeek {
		t.Fatalf("weekly donations went from %d on Sunday to %d on Monday, want a reset", sunday.DonationsPerWeek, monday.DonationsPerWeek)
	}
	for _, m := range monday.MemberList {
		if m.Donations > 40 {
			t.Fatalf("member %s donated %d in the first slot of the week", m.Tag, m.Donations)
		}
	}
}

// busiestClan is a full clan, whose stats are sure to move.
func busiestClan(t *testing.T, f fixture) string {
	t.Helper()
	list := decode[official.List[official.Clan]](t, f, "/clans?minMembers=50&limit=1")
	if len(list.Items) == 0 {
		t.Fatal("the world has no full clan")
	}
	return strings.TrimPrefix(list.Items[0].Tag, "#")
}

func memberByTag(members []official.ClanMember, tag string) official.ClanMember {
	for _, m := range members {
		if m.Tag == tag {
			return m
		}
	}
	return official.ClanMember{ClanChestPoints: new(int)}
}

func TestTrackableClansCarryTheAddress(t *testing.T) {
	for _, address := range []string{"crowns.example", "stats.example.org"} {
		t.Run(address, func(t *testing.T) {
			f := newFixture(t, sandbox.Config{TrackAddress: address, Clans: 1000})
			trackable := map[string]bool{}
			for _, tag := range f.world.TrackableClanTags() {
				trackable[tag] = true
			}
			share := float64(len(trackable)) / 1000
			if share < 0.05 || share > 0.10 {
				t.Errorf("%.1f%% of clans are trackable, want 5-10%%", share*100)
			}
			casings := map[string]bool{}
			for _, tag := range f.world.ClanTags() {
				clan, ok := f.world.Clan(tag)
				if !ok {
					t.Fatalf("Clan(%s) not found", tag)
				}
				carries := strings.Contains(strings.ToLower(clan.Description), address)
				if carries != trackable[tag] {
					t.Fatalf("clan %s (trackable %v): description %q", tag, trackable[tag], clan.Description)
				}
				if carries {
					at := strings.Index(strings.ToLower(clan.Description), address)
					casings[clan.Description[at:at+len(address)]] = true
				}
			}
			if len(casings) < 2 {
				t.Errorf("the address appears in one casing only: %v", casings)
			}
		})
	}
}

func TestWorldStaysSmall(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	world := sandbox.NewWorld(sandbox.Config{})
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 30<<20 {
		t.Fatalf("a default world holds %d MiB", grown>>20)
	}
	if n := len(world.ClanTags()); n != sandbox.DefaultClans {
		t.Fatalf("default world has %d clans, want %d", n, sandbox.DefaultClans)
	}
	runtime.KeepAlive(world)
}

func TestStartServesUntilStopped(t *testing.T) {
	world := sandbox.NewWorld(sandbox.Config{Clans: 50, Clock: models.NewManualClock(start)})
	baseURL, stop, err := sandbox.Start(context.Background(), world, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(baseURL, "http://127.0.0.1:") || !strings.HasSuffix(baseURL, "/v1") {
		t.Fatalf("baseURL %q", baseURL)
	}
	req, _ := http.NewRequest(http.MethodGet, baseURL+"/cards", nil)
	req.Header.Set("Authorization", "Bearer x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /cards: %d", resp.StatusCode)
	}
	if err := stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the world still answers after stop")
	}
}

func TestTinyWorldStillPlays(t *testing.T) {
	f := newFixture(t, sandbox.Config{Clans: 1})
	for _, tag := range f.world.PlayerTags() {
		log := decode[[]official.Battle](t, f, playerPath(tag)+"/battlelog")
		if len(log) < 25 {
			t.Fatalf("%s: %d battles", tag, len(log))
		}
	}
	if tags := f.world.TournamentTags(); len(tags) == 0 {
		t.Fatal("a one-clan world has no tournaments")
	}
}

// TestWeeklyDonationsCountMembersWhoLeft: as in the game's answers, a
// clan's donationsPerWeek also counts the week's donations of members who
// have left, so it is never below its members' sum and above it for some
// clans; search lists the same figure.
func TestWeeklyDonationsCountMembersWhoLeft(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	list := decode[official.List[official.Clan]](t, f, "/clans?minMembers=40&limit=20")
	if len(list.Items) == 0 {
		t.Fatal("the world has no clan of 40 members or more")
	}
	above := 0
	for _, listed := range list.Items {
		clan := decode[official.Clan](t, f, clanPath(strings.TrimPrefix(listed.Tag, "#")))
		sum := 0
		for _, m := range clan.MemberList {
			sum += m.Donations
		}
		if clan.DonationsPerWeek < sum || clan.DonationsPerWeek != listed.DonationsPerWeek {
			t.Fatalf("clan %s: donationsPerWeek %d (search: %d), members' sum %d", clan.Tag, clan.DonationsPerWeek, listed.DonationsPerWeek, sum)
		}
		if clan.DonationsPerWeek > sum {
			above++
		}
	}
	if above == 0 {
		t.Fatalf("no clan of %d counts donations beyond its members'", len(list.Items))
	}
}
