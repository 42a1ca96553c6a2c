package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models/legacy"
)

func TestClanSearchPagesThroughLinkHeaders(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("30")
	seen := map[string]bool{}
	path := "/clan/search?name=royal&limit=3"
	for page := 0; path != ""; page++ {
		if page > 50 {
			t.Fatal("paging does not end")
		}
		resp := h.get(path, "auth", key)
		link := resp.Header.Get("Link")
		var clans []legacy.ClanSearchResult
		decodeJSON(t, resp, &clans)
		if len(clans) > 3 {
			t.Fatalf("page of %d clans with limit=3", len(clans))
		}
		for _, c := range clans {
			if seen[c.Tag] {
				t.Fatalf("clan %s on two pages", c.Tag)
			}
			seen[c.Tag] = true
			if !strings.Contains(strings.ToLower(c.Name), "royal") {
				t.Fatalf("clan %q does not match the name filter", c.Name)
			}
			if strings.HasPrefix(c.Tag, "#") || c.Badge.ID == 0 || c.MemberCount < 1 {
				t.Fatalf("clan not in the legacy shape: %+v", c)
			}
		}
		path = nextLink(t, link)
	}
	if len(seen) < 4 {
		t.Fatalf("found %d royal clans across pages; the world has more", len(seen))
	}
}

// TestClanSearchLinksKeepTheShapeAskedFor: the pages a search's Link
// header points to are shaped by the request's max, keys and exclude too.
func TestClanSearchLinksKeepTheShapeAskedFor(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("30")
	for _, fields := range []string{"keys=tag,name", "keys=tag&keys=name"} {
		t.Run(fields, func(t *testing.T) {
			searchLinksKeepTheShape(t, h, key, "/clan/search?name=royal&limit=3&max=2&"+fields+"&page=1")
		})
	}
}

// searchLinksKeepTheShape follows two next links from path, a search
// asking max=2 and keys tag and name, and checks that each page keeps them.
func searchLinksKeepTheShape(t *testing.T, h *harness, key, path string) {
	for i := range 2 {
		resp := h.get(path, "auth", key)
		link := resp.Header.Get("Link")
		var clans []map[string]any
		decodeJSON(t, resp, &clans)
		if len(clans) == 0 || len(clans) > 2 {
			t.Fatalf("%s: %d clans, want 1 or 2 (max=2)", path, len(clans))
		}
		for _, c := range clans {
			if len(c) != 2 || c["tag"] == nil || c["name"] == nil {
				t.Fatalf("%s: clan %v, want its tag and name only", path, c)
			}
		}
		path = nextLink(t, link)
		if path == "" {
			t.Fatalf("no next page after %d clans", len(clans))
		}
		if !strings.Contains(path, "max=2") || !strings.Contains(path, "keys=tag%2Cname") {
			t.Fatalf("next link %q, want max and keys kept", path)
		}
		// Window 1 is the last of a page of 3: the next link is the
		// cursor's page, from its first window; window 0 of that page is
		// followed by its window 1.
		if i == 0 && strings.Contains(path, "page=") || i == 1 && !strings.Contains(path, "page=1") {
			t.Fatalf("next link %q after window %d", path, 1-i)
		}
	}
}

// TestClanSearchLinksVisitEveryWindow: with max smaller than the page a
// cursor gives, following rel="next" from the first window visits every
// clan once, in the search's order, and rel="prev" walks back the same
// way; no window of a page is skipped.
func TestClanSearchLinksVisitEveryWindow(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("37")
	var all []legacy.ClanSearchResult
	decodeJSON(t, h.get("/clan/search?name=royal&limit=12", "auth", key), &all)
	if len(all) < 12 {
		t.Fatalf("%d royal clans, want 12", len(all))
	}
	type step struct {
		tags       []string
		next, prev string
	}
	visit := func(t *testing.T, path string) step {
		t.Helper()
		resp := h.get(path, "auth", key)
		header := resp.Header.Get("Link")
		var clans []legacy.ClanSearchResult
		decodeJSON(t, resp, &clans)
		st := step{next: nextLink(t, header)}
		if m := linkPrev.FindStringSubmatch(header); m != nil {
			st.prev = m[1]
		}
		for _, c := range clans {
			st.tags = append(st.tags, c.Tag)
		}
		return st
	}
	// Windows of 2 in pages of 5 end short; in pages of 4 the last window
	// of a page ends exactly at its end, and its next link is the
	// cursor's next page, not an empty window after it.
	for _, limit := range []string{"5", "4"} {
		t.Run("limit="+limit, func(t *testing.T) {
			var walked, paths []string
			path := "/clan/search?name=royal&limit=" + limit + "&max=2"
			for len(walked) < 12 {
				st := visit(t, path)
				if len(st.tags) == 0 || st.next == "" {
					t.Fatalf("%s: %d clans, next %q after %d clans", path, len(st.tags), st.next, len(walked))
				}
				walked = append(walked, st.tags...)
				paths = append(paths, path)
				path = st.next
			}
			for i := range 12 {
				if walked[i] != all[i].Tag {
					t.Fatalf("clan %d along the next links is %s, want %s (walked %v)", i, walked[i], all[i].Tag, walked)
				}
			}
			// Back from the last window visited to the first.
			last := visit(t, paths[len(paths)-1])
			back := slices.Clone(last.tags)
			for path := last.prev; path != ""; {
				st := visit(t, path)
				back = append(slices.Clone(st.tags), back...)
				path = st.prev
				if len(back) > 12 {
					t.Fatalf("walked back %d clans, more than were walked forward", len(back))
				}
			}
			if !slices.Equal(back, walked[:len(back)]) || len(back) != len(walked) {
				t.Fatalf("walking back: %v, want %v", back, walked)
			}
		})
	}
}

func TestClanSearchFilters(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("31")
	var clans []legacy.ClanSearchResult
	decodeJSON(t, h.get("/clan/search?minMembers=45&maxMembers=48&score=20000&limit=100", "auth", key), &clans)
	if len(clans) == 0 {
		t.Fatal("no clan with 45-48 members and score 20000+")
	}
	for _, c := range clans {
		if c.MemberCount < 45 || c.MemberCount > 48 || c.Score < 20000 {
			t.Fatalf("clan outside the filters: %+v", c)
		}
	}
	var none []legacy.ClanSearchResult
	resp := h.get("/clan/search?name=zzzqqqxxx", "auth", key)
	raw := readBody(t, resp)
	if resp.StatusCode != http.StatusOK || strings.TrimSpace(string(raw)) != "[]" {
		t.Fatalf("no match: status %d body %s", resp.StatusCode, raw)
	}
	_ = json.Unmarshal(raw, &none)
}

func TestClanSearchCursorsTheGameAPIRejects(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("36")
	for i, tt := range []struct{ query, text string }{
		{"name=royal&after=garbage", "invalid value for 'after': not a cursor from a previous page"},
		{"name=royal&before=garbage", "invalid value for 'before': not a cursor from a previous page"},
	} {
		t.Run(tt.query, func(t *testing.T) {
			expectError(t, h.get("/clan/search?"+tt.query, "auth", key), http.StatusBadRequest, tt.text)
			// Only the game API can tell this cursor is not one of its own.
			if got := h.upstream.count("/v1/clans"); got != i+1 {
				t.Fatalf("the search reached the sandbox %d times in all, want %d", got, i+1)
			}
		})
	}
}

func TestClanSearchFiltersTheGameAPIRejects(t *testing.T) {
	refusing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"reason":"badRequest","message":"Invalid search criteria"}`))
	})
	h := newHarness(t, harnessOptions{upstream: refusing})
	key := h.issue("37")
	for _, tt := range []struct{ query, text string }{
		{"name=royal&minMembers=10", "invalid value for 'name': rejected by the game API"},
		{"score=500&locationId=57000000", "invalid value for 'score': rejected by the game API"},
		{"locationId=57000000&maxMembers=20", "invalid value for 'maxMembers': rejected by the game API"},
		{"name=royal&after=eyJwb3MiOjJ9", "invalid value for 'after': not a cursor from a previous page"},
	} {
		t.Run(tt.query, func(t *testing.T) {
			expectError(t, h.get("/clan/search?"+tt.query, "auth", key), http.StatusBadRequest, tt.text)
		})
	}
}

func TestPlayerBattles(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	key := h.issue("32")
	player := h.world.PlayerTags()[0]
	var battles []legacy.Battle
	decodeJSON(t, h.get("/player/"+strings.ToLower(player)+"/battles", "auth", key), &battles)
	if len(battles) != legacy.MaxBattles {
		t.Fatalf("%d battles, want %d", len(battles), legacy.MaxBattles)
	}
	// A percent-encoded letter is that letter: the same player.
	var escaped []legacy.Battle
	decodeJSON(t, h.get("/player/"+url.PathEscape("#")+"%"+strconv.FormatInt(int64(player[0]), 16)+player[1:]+"/battles", "auth", key), &escaped)
	if !reflect.DeepEqual(escaped, battles) {
		t.Fatal("the battles of the tag with an escaped first letter differ")
	}
	if !sort.SliceIsSorted(battles, func(i, j int) bool { return battles[i].UTCTime > battles[j].UTCTime }) {
		t.Fatal("battles are not newest first")
	}
	now := h.clock.Now().Unix()
	for _, b := range battles {
		if b.UTCTime > now || b.UTCTime < now-90*24*3600 {
			t.Fatalf("utcTime %d is not Unix seconds near the clock's %d", b.UTCTime, now)
		}
		if b.Winner != b.TeamCrowns-b.OpponentCrowns {
			t.Fatalf("winner %d != %d - %d", b.Winner, b.TeamCrowns, b.OpponentCrowns)
		}
		if len(b.Team) == 0 || len(b.Opponent) == 0 || b.TeamSize != len(b.Team) {
			t.Fatalf("battle sides: %+v", b)
		}
		for _, p := range append(b.Team, b.Opponent...) {
			if !strings.HasPrefix(p.DeckLink, "https://link.clashroyale.com/deck/en?deck=") || len(p.Deck) == 0 {
				t.Fatalf("participant deck: %+v", p)
			}
		}
	}
}

func TestUpstreamFailuresAsAnswers(t *testing.T) {
	for _, tt := range []struct {
		name       string
		status     int
		body       string
		header     map[string]string
		want       int
		text       string
		retryAfter string
	}{
		{"not found", 404, `{"reason":"notFound","message":"Not found"}`, nil, 404, "Not found", ""},
		{"maintenance", 503, `{"reason":"inMaintenance","message":"Service is temporarily unavailable because of maintenance."}`, nil, 503, "Temporarily unavailable", "30"},
		{"throttled", 429, `{"reason":"requestThrottled","message":"Request was throttled"}`, map[string]string{"Retry-After": "7"}, 503, "Temporarily unavailable", "7"},
		{"server error", 500, `{"reason":"unknownException"}`, nil, 503, "Temporarily unavailable", "10"},
		{"refused token", 403, `{"reason":"accessDenied.invalidIp","message":"Invalid authorization: API key does not allow access from IP 1.2.3.4"}`, nil, 503, "Temporarily unavailable", "60"},
		{"malformed JSON", 200, `{"items": [`, nil, 503, "Temporarily unavailable", "10"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			})
			h := newHarness(t, harnessOptions{upstream: upstream})
			key := h.issue("33")
			resp := h.get("/player/2CCCP/battles", "auth", key)
			body := expectError(t, resp, tt.want, tt.text)
			if got := resp.Header.Get("Retry-After"); got != tt.retryAfter {
				t.Fatalf("Retry-After = %q, want %q", got, tt.retryAfter)
			}
			if strings.Contains(body.StatusText+body.Info, "IP") || strings.Contains(body.StatusText, "maintenance") {
				t.Fatal("upstream text reached the client")
			}
		})
	}
}

func TestUpstreamUnreachable(t *testing.T) {
	closed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Hijack and drop the connection: a transport failure, not a status.
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	})
	h := newHarness(t, harnessOptions{upstream: closed})
	key := h.issue("34")
	resp := h.get("/clan/search?name=royal", "auth", key)
	expectError(t, resp, http.StatusServiceUnavailable, "Temporarily unavailable")
	if resp.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
}

func TestUpstreamTooSlow(t *testing.T) {
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})
	// The request's own deadline is an hour away: only the upstream
	// client's timeout (2s in the harness) can end the call, so without it
	// the request hangs and the test with it.
	h := newHarness(t, harnessOptions{upstream: slow, config: func(c *api.Config) { c.RequestTimeout = time.Hour }})
	key := h.issue("35")
	expectError(t, h.get("/clan/search?name=royal", "auth", key), http.StatusServiceUnavailable, "Temporarily unavailable")
}

var linkNext = regexp.MustCompile(`<([^>]+)>;\s*rel="next"`)

// linkPrev finds the target of a Link header's rel="prev".
var linkPrev = regexp.MustCompile(`<([^>]+)>;\s*rel="prev"`)

// nextLink returns the target of a Link header's rel="next", or "".
func nextLink(t *testing.T, header string) string {
	t.Helper()
	m := linkNext.FindStringSubmatch(header)
	if m == nil {
		return ""
	}
	if !strings.HasPrefix(m[1], "/clan/search?") {
		t.Fatalf("next link %q does not point at the search", m[1])
	}
	return m[1]
}
