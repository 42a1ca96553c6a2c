package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Answers of the routes, in their legacy shapes, that the shaping fuzz
// tests start from.
var shapingSeedAnswers = []string{
	// battles
	`[{"type":"PvP","utcTime":1709294400,"teamSize":1,"mode":{"name":"Ladder","deck":"Collection","sameDeck":false},` +
		`"team":[{"tag":"2PP","name":"first","crownsEarned":3,"deck":[{"name":"Knight","level":11,"id":26000000}],"clan":{"tag":"2CCCP","name":"c"}}],` +
		`"opponent":[{"tag":"2PY","name":"second","crownsEarned":0,"deck":[]}],"arena":{"name":"Arena 1","arenaID":54000001},"winner":3}]`,
	// history, keyed by slot
	`{"2026-11-01-08-00":{"name":"c","score":41234,"memberCount":2,"members":[{"tag":"2PP","name":"first","trophies":5000,"donations":10}]},` +
		`"2026-11-01-12-00":{"name":"c","score":41300,"memberCount":1,"members":[]}}`,
	// tracking
	`{"tag":"2CCCP","active":true,"available":true,"legible":true,"snapshotCount":3}`,
	// a tournament list
	`[{"tag":"2PQ8","open":true,"status":"inProgress","name":"t","currentPlayers":10,"maxPlayers":50,"startTime":1709294400,"endTime":null,"members":[{"tag":"2PP","name":"p","score":3}]}]`,
	// escapes and nesting
	`{"a\\b":1,"q\"":[{"x":{"y":[1,{"z":2}]}}],"<&>":"\u00e9"}`,
}

// FuzzShapeBody applies keys, exclude, max and page to real answers (and
// to whatever JSON the fuzzer makes of them): the shaped body is valid
// JSON, is what a reference applying the README's rules to the decoded
// answer gives (so a subset of the full answer), and shaping it again
// changes nothing.
func FuzzShapeBody(f *testing.F) {
	for i, answer := range shapingSeedAnswers {
		f.Add([]byte(answer), "type,team.deck,members.tag", "", uint8(0), uint16(0), i == 1)
		f.Add([]byte(answer), "", "arena,team.tag,score", uint8(2), uint16(1), i == 1)
		f.Add([]byte(answer), "team,arena", "team.deck,arena.arenaID,,a..b", uint8(1), uint16(3), false)
	}
	f.Add([]byte(`[1,"a",null,{"k":1}]`), "k", "k.x", uint8(3), uint16(0), false)
	f.Fuzz(func(t *testing.T, raw []byte, keys, exclude string, pageSize uint8, page uint16, bySlot bool) {
		full, ok := decodeExactly(raw)
		if !ok {
			return
		}
		body, _ := json.Marshal(full) // one value, no duplicate names
		if _, isObject := full.(map[string]any); bySlot && !isObject {
			bySlot = false // only history answers, objects, are keyed by slot
		}
		shape := answerShape{pageSize: int(pageSize) % (pageSizeMax + 1), page: int(page), bySlot: bySlot}
		keep, drop := parseFieldSet([]byte(keys)), parseFieldSet([]byte(exclude))
		shaped, elements, err := shapeBody(body, shape, keep, drop)
		if err != nil {
			t.Fatalf("shapeBody(%s): %v", body, err)
		}
		got, ok := decodeExactly(shaped)
		if !ok {
			t.Fatalf("shapeBody(%s, keys %q, exclude %q) = %s: not one JSON value", body, keys, exclude, shaped)
		}
		want, wantElements := referenceShape(full, shape, keep, drop)
		if !reflect.DeepEqual(got, want) || elements != wantElements {
			t.Fatalf("shapeBody(%s, keys %q, exclude %q, %+v) = %s (%d elements)\nwant %s (%d elements)",
				body, keys, exclude, shape, shaped, elements, mustJSON(want), wantElements)
		}
		again, _, err := shapeBody(shaped, answerShape{bySlot: bySlot}, keep, drop)
		if err != nil || !bytes.Equal(again, shaped) {
			t.Fatalf("shaping %s again gives %s, %v", shaped, again, err)
		}
	})
}

// decodeExactly decodes one JSON value, its numbers as written.
func decodeExactly(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	return v, true
}

func mustJSON(v any) []byte {
	out, _ := json.Marshal(v)
	return out
}

// referenceShape is the README's rules applied to a decoded answer: a
// list is cut to page page of pageSize elements, then of each element
// (each slot's snapshot when bySlot, each array element, or the answer
// itself) only the fields keep names are kept (all when keep is nil) and
// those drop names whole are left out, going into the fields they name
// nested paths of.
func referenceShape(v any, shape answerShape, keep, drop fieldSet) (any, int) {
	elements := -1
	if list, isList := v.([]any); isList && shape.pageSize > 0 {
		elements = len(list)
		from := min(shape.page*shape.pageSize, len(list))
		v = slices.Clone(list[from:min(from+shape.pageSize, len(list))])
	}
	if object, isObject := v.(map[string]any); isObject && shape.bySlot {
		out := map[string]any{}
		for slot, snapshot := range object {
			out[slot] = referenceFields(snapshot, keep, drop)
		}
		return out, elements
	}
	return referenceFields(v, keep, drop), elements
}

func referenceFields(v any, keep, drop fieldSet) any {
	if keep == nil && drop == nil {
		return v
	}
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, element := range v {
			out[i] = referenceFields(element, keep, drop)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for name, field := range v {
			keepInside, kept := keep[name]
			dropInside, dropped := drop[name]
			if (keep != nil && !kept) || (dropped && dropInside == nil) {
				continue
			}
			out[name] = referenceFields(field, keepInside, dropInside)
		}
		return out
	}
	return v
}

// FuzzParseFieldSet checks that the set a keys or exclude list names does
// not depend on the order of its paths, nor on spaces around them.
func FuzzParseFieldSet(f *testing.F) {
	for _, seed := range []string{"type,team.deck", "team.deck,team", "team,team.deck", "a.b.c,a.b,a.d", " tag , name ", ",", "a..b,.a,a.", "é.ü,\x00"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		set := parseFieldSet([]byte(raw))
		paths := strings.Split(raw, ",")
		slices.Reverse(paths)
		for i, path := range paths {
			paths[i] = " " + strings.TrimSpace(path) + " "
		}
		reordered := strings.Join(paths, ",")
		if other := parseFieldSet([]byte(reordered)); !reflect.DeepEqual(set, other) {
			t.Fatalf("parseFieldSet(%q) = %v, but parseFieldSet(%q) = %v", raw, set, reordered, other)
		}
	})
}
