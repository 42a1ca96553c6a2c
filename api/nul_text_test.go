package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// nulUpstream is the sandbox world with a NUL inside every name and
// description of its clan and tournament answers, as the game API may
// send them (\u0000 in its JSON).
type nulUpstream struct {
	next http.Handler
}

func (u *nulUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := httptest.NewRecorder()
	u.next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if rec.Code == http.StatusOK && (strings.HasPrefix(r.URL.Path, "/v1/clans") || strings.HasPrefix(r.URL.Path, "/v1/tournaments")) {
		var answer any
		if err := json.Unmarshal(body, &answer); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		body, _ = json.Marshal(withNULs(answer))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rec.Code)
	_, _ = w.Write(body)
}

// withNULs puts a NUL after the first character of every name and
// description in a decoded JSON value.
func withNULs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for field, value := range v {
			if text, ok := value.(string); ok && text != "" && (field == "name" || field == "description") {
				v[field] = text[:1] + "\x00" + text[1:]
				continue
			}
			v[field] = withNULs(value)
		}
	case []any:
		for i := range v {
			v[i] = withNULs(v[i])
		}
	}
	return v
}

// eachNULHarness runs fn on each engine with a harness, tournaments on,
// whose game API sends a NUL inside every clan and tournament name and
// description, and a key of that harness.
func eachNULHarness(t *testing.T, fn func(t *testing.T, h *harness, key string)) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			nul := &nulUpstream{}
			h := newHarness(t, harnessOptions{engine: engine, upstream: nul, config: func(c *api.Config) { c.Tournaments = true }})
			nul.next = h.world.Handler()
			fn(t, h, h.issue("80"))
		})
	}
}

// expectStorableNames fails when a name in answer is not what Crowns
// makes of one with a NUL: the NUL replaced by U+FFFD.
func expectStorableNames(t *testing.T, what string, names []string) {
	t.Helper()
	if len(names) == 0 {
		t.Fatalf("%s: no names", what)
	}
	for _, name := range names {
		if strings.ContainsRune(name, 0) || !strings.ContainsRune(name, '\uFFFD') {
			t.Fatalf("%s: name %q, want its NUL replaced by U+FFFD", what, name)
		}
	}
}

// A clan whose name, description and member names carry a NUL is tracked
// on either engine (PostgreSQL refuses a NUL in text), and its history
// names its members as the game API's answers do, the NUL replaced.
func TestClanWithNULsInItsNamesIsTrackedAndItsHistoryRead(t *testing.T) {
	eachNULHarness(t, func(t *testing.T, h *harness, key string) {
		clan := h.world.TrackableClanTags()[0]
		if resp := h.get("/clan/"+clan+"/track", "auth", key); resp.StatusCode != http.StatusOK {
			t.Fatalf("track: %d %s", resp.StatusCode, readBody(t, resp))
		}
		var history map[string]struct {
			Members []struct{ Name, Tag string } `json:"members"`
		}
		decodeJSON(t, h.get("/clan/"+clan+"/history", "auth", key), &history)
		if len(history) != 1 {
			t.Fatalf("history has %d snapshots, want the one of tracking", len(history))
		}
		var names []string
		for _, snapshot := range history {
			for _, m := range snapshot.Members {
				names = append(names, m.Name)
			}
		}
		expectStorableNames(t, "history", names)
		tracked, err := h.db.TrackedClan(t.Context(), clan)
		if err != nil {
			t.Fatal(err)
		}
		expectStorableNames(t, "tracked clan", []string{tracked.Name})
	})
}

// A tournament whose name and description carry a NUL is looked up and
// stored on either engine, and listed under the name its lookup answered.
func TestTournamentWithANULInItsNameIsLookedUpAndListed(t *testing.T) {
	eachNULHarness(t, func(t *testing.T, h *harness, key string) {
		tag := h.world.TournamentTags()[0]
		var looked map[string]any
		decodeJSON(t, h.get("/tournament/"+tag, "auth", key), &looked)
		name, _ := looked["name"].(string)
		description, _ := looked["description"].(string)
		expectStorableNames(t, "lookup", []string{name, description})
		var known []map[string]any
		decodeJSON(t, h.get("/tournaments/known", "auth", key), &known)
		if len(known) != 1 || known[0]["tag"] != tag || known[0]["name"] != name {
			t.Fatalf("known after the lookup: %v, want %s named %q", known, tag, name)
		}
	})
}
