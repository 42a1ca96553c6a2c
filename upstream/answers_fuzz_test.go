package upstream_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
	"github.com/crownsdev/crowns/upstream"
)

// The tags the fuzzed lookups ask for, those of the fixtures.
const (
	fuzzedPlayer     = "P2Q8"
	fuzzedClan       = "C2Q8"
	fuzzedTournament = "T2Q8"
)

// FuzzAnswers has the client decode whatever a game API answers with 200
// on each endpoint: a body that does not decode is the upstream being
// unavailable (never a panic, never another error), and one that does
// gives results whose every string is storable text (no NUL, valid
// UTF-8), a battle log of at most legacy.MaxBattles battles, newest
// first, each winner its crowns' difference, and lookups of the tag asked.
func FuzzAnswers(f *testing.F) {
	for endpoint, name := range []string{"battlelog.json", "clan.json", "tournament.json", "clans_current.json"} {
		body, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(endpoint), body)
	}
	f.Add(uint8(0), []byte(`[{"battleTime":"x","team":[{"crowns":-1,"tag":"#\u0000"}],"opponent":null}]`))
	f.Add(uint8(1), []byte("{\"tag\":\"#C2Q8\",\"memberList\":[{\"clanChestPoints\":null,\"name\":\"\xff\"}]}"))
	f.Add(uint8(2), []byte(`{"tag":"T2Q8","createdTime":"20240303T100000.000Z","membersList":null}`))
	f.Add(uint8(3), []byte(`{"items":[{"tag":"#C","location":{"id":1,"isCountry":true,"countryCode":"ZZ"}}],"paging":{"cursors":{}}}`))
	var (
		mu      sync.Mutex
		current []byte
	)
	base := fakeUpstream(f, func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		body := current
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})
	client, _ := newClient(f, base, upstream.Config{})
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, endpoint uint8, body []byte) {
		mu.Lock()
		current = body
		mu.Unlock()
		var result any
		var err error
		switch endpoint % 4 {
		case 0:
			var battles []legacy.Battle
			if battles, err = client.PlayerBattles(ctx, fuzzedPlayer); err == nil {
				checkBattles(t, battles)
			}
			result = battles
		case 1:
			var clan models.ClanDetails
			if clan, err = client.Clan(ctx, fuzzedClan); err == nil && clan.Tag != fuzzedClan {
				t.Fatalf("clan %s answered as %q", fuzzedClan, clan.Tag)
			}
			result = clan
		case 2:
			var tournament models.TournamentDetails
			if tournament, err = client.Tournament(ctx, fuzzedTournament); err == nil && tournament.Tag != fuzzedTournament {
				t.Fatalf("tournament %s answered as %q", fuzzedTournament, tournament.Tag)
			}
			result = tournament
		case 3:
			result, err = client.SearchClans(ctx, legacy.ClanSearchQuery{Name: "royal", MinScore: -1})
		}
		if err != nil {
			if !errors.Is(err, models.ErrUnavailable) {
				t.Fatalf("answer %q: %v, not unavailable", body, err)
			}
			return
		}
		checkStorable(t, reflect.ValueOf(result), body)
	})
}

// checkBattles fails t unless battles is a battle log as legacy answers
// it.
func checkBattles(t *testing.T, battles []legacy.Battle) {
	t.Helper()
	if len(battles) > legacy.MaxBattles {
		t.Fatalf("%d battles, want at most %d", len(battles), legacy.MaxBattles)
	}
	for i, b := range battles {
		if i > 0 && b.UTCTime > battles[i-1].UTCTime {
			t.Fatalf("battle %d at %d after one at %d: not newest first", i, b.UTCTime, battles[i-1].UTCTime)
		}
		if b.Winner != b.TeamCrowns-b.OpponentCrowns {
			t.Fatalf("battle %d: winner %d of crowns %d-%d", i, b.Winner, b.TeamCrowns, b.OpponentCrowns)
		}
	}
}

// checkStorable fails t unless every string inside v is storable text.
func checkStorable(t *testing.T, v reflect.Value, body []byte) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		if s := v.String(); models.StorableText(s) != s {
			t.Fatalf("answer %q decoded to the unstorable text %q", body, s)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			checkStorable(t, v.Elem(), body)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			checkStorable(t, v.Index(i), body)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				checkStorable(t, v.Field(i), body)
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			checkStorable(t, it.Key(), body)
			checkStorable(t, it.Value(), body)
		}
	}
}
