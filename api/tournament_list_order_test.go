package api_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// listFieldOrder is each list's element fields in the order the
// contract's tables write them, which is the order of the legacy API's
// list answers.
var listFieldOrder = map[string][]string{
	"known":    knownFieldOrder,
	"open":     knownFieldOrder,
	"joinable": knownFieldOrder,
	"1k": {"tag", "name", "open", "currentPlayers", "status", "createTime", "prepTime", "startTime", "endTime",
		"duration", "description", "updatedAt", "maxCapacity"},
	"full": {"tag", "name", "open", "maxPlayers", "currentPlayers", "status", "createTime", "prepTime", "startTime",
		"endTime", "duration", "description", "updatedAt", "members"},
	"inprep": {"tag", "open", "status", "name", "currentPlayers", "maxCapacity", "prepTime", "duration", "createTime",
		"startTime", "endTime"},
}

var knownFieldOrder = []string{"tag", "open", "status", "name", "currentPlayers", "maxPlayers", "prepTime", "duration",
	"createTime", "startTime", "endTime"}

// Every list's elements carry their fields in the order of the contract's
// table of that list.
func TestTournamentListElementsKeepTheContractsFieldOrder(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("75")
	storeListFixtures(t, h)
	for _, list := range tournamentListNames {
		t.Run(list, func(t *testing.T) {
			var elements []json.RawMessage
			decodeJSON(t, h.get("/tournaments/"+list, "auth", key), &elements)
			if len(elements) == 0 {
				t.Fatal("no element to check")
			}
			for _, element := range elements {
				if got := objectFieldOrder(t, element); !slices.Equal(got, listFieldOrder[list]) {
					t.Fatalf("fields %v\nwant   %v", got, listFieldOrder[list])
				}
			}
		})
	}
}

// objectFieldOrder is the names of a JSON object's fields in the order
// written.
func objectFieldOrder(t *testing.T, object json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(object))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", object)
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tok.(string))
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			t.Fatal(err)
		}
	}
	return names
}
