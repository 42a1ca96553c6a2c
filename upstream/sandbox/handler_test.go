package sandbox_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/upstream/official"
	"github.com/crownsdev/crowns/upstream/sandbox"
)

func TestRequestsWithoutBearerTokenAreDenied(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	tests := []struct {
		authorization string
		want          int
	}{
		{"", http.StatusForbidden},
		{"Basic dXNlcjpwYXNz", http.StatusForbidden},
		{"Bearer ", http.StatusForbidden},
		{"Bearer eyJ0eXAiOiJKV1Qi", http.StatusOK},
		{"bearer lower-case-scheme", http.StatusOK},
	}
	for _, tt := range tests {
		status, body := f.getWith(t, "/cards", tt.authorization)
		if status != tt.want {
			t.Errorf("Authorization %q: status %d, want %d", tt.authorization, status, tt.want)
		}
		if tt.want == http.StatusForbidden {
			assertReason(t, body, official.ReasonAccessDenied)
		}
	}
}

func TestUnknownThingsAreNotFound(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	clan := f.world.ClanTags()[0]
	paths := []string{
		"/clans/%23" + strings.Repeat("2", len(clan)),
		"/clans/%23" + clan + "Q",
		"/clans/" + clan, // no '#'
		"/clans/%23!!",
		"/clans/%23" + clan + "/nothing",
		"/players/%23" + clan,
		"/players/%23" + clan + "/battlelog",
		"/tournaments/%23" + clan + "2",
		"/nothing",
		"/clans/%23" + strings.Repeat("2", len(clan)) + "/members",
	}
	for _, path := range paths {
		status, body := f.get(t, path)
		if status != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", path, status)
			continue
		}
		assertReason(t, body, official.ReasonNotFound)
	}
	status, _ := f.get(t, "/clans/%23"+strings.ToLower(clan))
	if status != http.StatusOK {
		t.Errorf("a lower-case tag: status %d, want 200", status)
	}
}

func TestClanSearchFilters(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	tests := []struct {
		query string
		check func(official.Clan) bool
	}{
		{"name=royal", func(c official.Clan) bool { return strings.Contains(strings.ToLower(c.Name), "royal") }},
		{"name=KNIGHTS&limit=100", func(c official.Clan) bool { return strings.Contains(strings.ToLower(c.Name), "knights") }},
		{"locationId=57000094", func(c official.Clan) bool {
			return c.Location != nil && c.Location.ID == 57000094 && c.Location.Name == "Germany" && c.Location.CountryCode == "DE"
		}},
		{"minMembers=45&maxMembers=48", func(c official.Clan) bool { return c.Members >= 45 && c.Members <= 48 }},
		{"maxMembers=3", func(c official.Clan) bool { return c.Members <= 3 }},
		{"minScore=40000", func(c official.Clan) bool { return c.ClanScore >= 40000 }},
		{"name=the&minMembers=50", func(c official.Clan) bool {
			return strings.Contains(strings.ToLower(c.Name), "the") && c.Members == 50
		}},
	}
	for _, tt := range tests {
		list := decode[official.List[official.Clan]](t, f, "/clans?"+tt.query)
		if len(list.Items) < 2 {
			t.Errorf("%s: %d results, want several", tt.query, len(list.Items))
		}
		for _, c := range list.Items {
			if !tt.check(c) || c.Description != "" || c.MemberList != nil {
				t.Errorf("%s: result %+v does not fit", tt.query, c)
			}
		}
	}
}

func TestClanSearchRejectsBadQueries(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	for _, query := range []string{
		"",
		"limit=10",
		"name=ab",
		"name=royal&limit=0",
		"name=royal&limit=many",
		"minMembers=ten",
		"name=royal&after=eyJwb3MiOjJ9&before=eyJwb3MiOjJ9",
		"name=royal&after=not-a-marker",
		"name=royal&after=garbage",
		"name=royal&before=garbage",
	} {
		status, body := f.get(t, "/clans?"+query)
		if status != http.StatusBadRequest {
			t.Errorf("%q: status %d, want 400", query, status)
			continue
		}
		assertReason(t, body, official.ReasonBadRequest)
	}
}

func TestClanSearchPagesWithCursors(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	all := decode[official.List[official.Clan]](t, f, "/clans?name=the&limit=1000")
	if len(all.Items) < 15 || all.Paging.Cursors.After != "" || all.Paging.Cursors.Before != "" {
		t.Fatalf("the whole list: %d items, cursors %+v", len(all.Items), all.Paging.Cursors)
	}
	first := decode[official.List[official.Clan]](t, f, "/clans?name=the&limit=5")
	if first.Paging.Cursors.After == "" || first.Paging.Cursors.Before != "" {
		t.Fatalf("first page cursors %+v", first.Paging.Cursors)
	}
	second := decode[official.List[official.Clan]](t, f, "/clans?name=the&limit=5&after="+first.Paging.Cursors.After)
	back := decode[official.List[official.Clan]](t, f, "/clans?name=the&limit=5&before="+second.Paging.Cursors.Before)
	for i := range 5 {
		if first.Items[i].Tag != all.Items[i].Tag || second.Items[i].Tag != all.Items[5+i].Tag || back.Items[i].Tag != all.Items[i].Tag {
			t.Fatalf("position %d: pages do not follow the whole list", i)
		}
	}
	if back.Paging.Cursors.Before != "" || back.Paging.Cursors.After == "" {
		t.Fatalf("back on the first page, cursors %+v", back.Paging.Cursors)
	}
	// A marker made up to point far past the end (the largest position:
	// the page's end would overflow) is an empty last page.
	farAfter := base64.RawURLEncoding.EncodeToString([]byte(`{"pos":9223372036854775807}`))
	past := decode[official.List[official.Clan]](t, f, "/clans?name=the&limit=5&after="+farAfter)
	if len(past.Items) != 0 || past.Paging.Cursors.After != "" {
		t.Fatalf("past the end: %d items, cursors %+v; want none and no next page", len(past.Items), past.Paging.Cursors)
	}
}

func TestClanMembersList(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	tag := busiestClan(t, f)
	clan := decode[official.Clan](t, f, clanPath(tag))
	members := decode[official.List[official.ClanMember]](t, f, clanPath(tag)+"/members")
	if len(members.Items) != clan.Members {
		t.Fatalf("%d members listed, clan says %d", len(members.Items), clan.Members)
	}
	roles := map[string]int{}
	for i, m := range members.Items {
		roles[m.Role]++
		if m.Tag != clan.MemberList[i].Tag || m.Trophies != clan.MemberList[i].Trophies {
			t.Fatalf("member %d differs between /members and the clan", i)
		}
		if _, ok := decodeStatus(t, f, playerPath(strings.TrimPrefix(m.Tag, "#"))); !ok {
			t.Fatalf("member %s does not resolve as a player", m.Tag)
		}
	}
	if roles["leader"] != 1 || roles["coLeader"] == 0 || roles["elder"] == 0 || roles["member"] == 0 {
		t.Fatalf("roles %v", roles)
	}
}

func decodeStatus(t *testing.T, f fixture, path string) (int, bool) {
	t.Helper()
	status, _ := f.get(t, path)
	return status, status == http.StatusOK
}

func TestCatalogLists(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	cards := decode[official.List[official.Item]](t, f, "/cards")
	if len(cards.Items) < 100 || cards.Paging != nil {
		t.Fatalf("%d cards, paging %v", len(cards.Items), cards.Paging)
	}
	locations := decode[official.List[official.Location]](t, f, "/locations")
	var countries int
	for _, l := range locations.Items {
		if l.IsCountry && l.CountryCode != "" {
			countries++
		}
	}
	if countries < 40 || countries == len(locations.Items) {
		t.Fatalf("%d countries among %d locations", countries, len(locations.Items))
	}
}

func assertReason(t *testing.T, body []byte, reason string) {
	t.Helper()
	var e official.ClientError
	if err := json.Unmarshal(body, &e); err != nil || e.Reason != reason || e.Message == "" {
		t.Errorf("error body %s, want reason %q and a message", body, reason)
	}
}

// TestLocationsPaging checks that /locations takes limit, after and
// before as the official API does, so that a client following its cursors
// gets every location once.
func TestLocationsPaging(t *testing.T) {
	f := newFixture(t, sandbox.Config{})
	all := decode[official.List[official.Location]](t, f, "/locations")
	first := decode[official.List[official.Location]](t, f, "/locations?limit=10")
	if len(first.Items) != 10 || first.Paging == nil || first.Paging.Cursors.After == "" || first.Paging.Cursors.Before != "" {
		t.Fatalf("limit=10: %d items, paging %+v; want 10 and a next page", len(first.Items), first.Paging)
	}
	seen := map[int]bool{}
	page := first
	for pages := 1; ; pages++ {
		for _, l := range page.Items {
			if seen[l.ID] {
				t.Fatalf("location %d listed twice", l.ID)
			}
			seen[l.ID] = true
		}
		if page.Paging.Cursors.After == "" {
			break
		}
		if pages > len(all.Items) {
			t.Fatal("the cursors never end")
		}
		page = decode[official.List[official.Location]](t, f, "/locations?limit=10&after="+page.Paging.Cursors.After)
	}
	if len(seen) != len(all.Items) {
		t.Fatalf("the pages hold %d locations, the whole list %d", len(seen), len(all.Items))
	}
	if status, body := f.get(t, "/locations?limit=0"); status != http.StatusBadRequest {
		t.Errorf("limit=0: status %d, want 400", status)
	} else {
		assertReason(t, body, official.ReasonBadRequest)
	}
}
