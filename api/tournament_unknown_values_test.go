package api_test

import (
	"slices"
	"testing"
	"time"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// Tournaments of testdata/game whose status or type the game API does not
// name: 2QQRL0 is open, 2 of 1000 players, of status UNKNOWN; 2QQRL2 of
// type UNKNOWN, 1 of 50, in preparation.
const (
	tournamentOfUnknownStatus = "2QQRL0"
	tournamentOfUnknownType   = "2QQRL2"
)

// newUnknownValuesHarness is a harness on engine with tournaments on whose
// upstream answers testdata/game, where a client looked up
// tournamentOfUnknownStatus and, a minute later, tournamentOfUnknownType.
func newUnknownValuesHarness(t *testing.T, engine store.Dialect) (*harness, string) {
	t.Helper()
	h := newHarness(t, harnessOptions{engine: engine, upstream: gameDataUpstream(t), config: func(c *api.Config) { c.Tournaments = true }})
	key := h.issue("75")
	getJSON(t, h, key, "/tournament/"+tournamentOfUnknownStatus)
	h.clock.Advance(time.Minute)
	getJSON(t, h, key, "/tournament/"+tournamentOfUnknownType)
	return h, key
}

// A status or type the game does not name reaches clients as "unknown",
// one of the values the OpenAPI document lists; an unknown type is not
// open.
func TestUnnamedTournamentStatusAndTypeAreUnknown(t *testing.T) {
	h, key := newUnknownValuesHarness(t, store.DialectSQLite)
	checkFields(t, getJSON(t, h, key, "/tournament/"+tournamentOfUnknownStatus+","+tournamentOfUnknownType), []fieldWant{
		{path: "0.tag", kind: "string", value: quoted(tournamentOfUnknownStatus)},
		{path: "0.status", kind: "string", value: quoted(models.TournamentStatusUnknown)},
		{path: "0.type", kind: "string", value: quoted(models.TournamentTypeOpen)},
		{path: "0.open", kind: "boolean", value: "true"},
		{path: "0.startTime", kind: "null"},
		{path: "0.endedTime", kind: "null"},
		{path: "1.tag", kind: "string", value: quoted(tournamentOfUnknownType)},
		{path: "1.status", kind: "string", value: quoted(models.TournamentInPreparation)},
		{path: "1.type", kind: "string", value: quoted(models.TournamentTypeUnknown)},
		{path: "1.open", kind: "boolean", value: "false"},
	})
	checkFields(t, getJSON(t, h, key, "/tournaments/known"), []fieldWant{
		{path: "0.status", kind: "string", value: quoted(models.TournamentInPreparation)},
		{path: "0.open", kind: "boolean", value: "false"},
		{path: "1.status", kind: "string", value: quoted(models.TournamentStatusUnknown)},
		{path: "1.open", kind: "boolean", value: "true"},
	})
}

// In the lists a tournament of unknown status is neither in preparation
// nor joinable (it may have ended), and one of unknown type is not open;
// the other lists take them by their other properties.
func TestUnnamedTournamentStatusAndTypeInTheLists(t *testing.T) {
	for _, engine := range storetest.Engines() {
		t.Run(string(engine), func(t *testing.T) {
			h, key := newUnknownValuesHarness(t, engine)
			for _, tt := range []struct {
				path string
				want []string
			}{
				{"/tournaments/known", []string{tournamentOfUnknownType, tournamentOfUnknownStatus}},
				{"/tournaments/1k", []string{tournamentOfUnknownStatus}},
				{"/tournaments/full", []string{}},
				{"/tournaments/open", []string{tournamentOfUnknownStatus}},
				{"/tournaments/inprep", []string{tournamentOfUnknownType}},
				{"/tournaments/joinable", []string{}},
				{"/tournaments/known?open=1", []string{tournamentOfUnknownStatus}},
				{"/tournaments/known?inprep=1", []string{tournamentOfUnknownType}},
				{"/tournaments/known?joinable=1", []string{}},
				{"/tournaments/1k?joinable=1", []string{}},
			} {
				t.Run(tt.path, func(t *testing.T) {
					if got := getList(t, h, key, tt.path); !slices.Equal(got, tt.want) {
						t.Fatalf("tags %v, want %v", got, tt.want)
					}
				})
			}
		})
	}
}
