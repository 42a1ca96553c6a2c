package api

import "testing"

func TestShapeBody(t *testing.T) {
	const battles = `[{"type":"PvP","team":[{"tag":"A","deck":[1,2]},{"tag":"B","deck":[]}],"arena":{"name":"x","id":1}},{"type":"2v2","team":null}]`
	tests := []struct {
		name          string
		body          string
		shape         answerShape
		keys, exclude string
		want          string
	}{
		{"keys through an array", battles, answerShape{}, "type,team.deck", "", `[{"type":"PvP","team":[{"deck":[1,2]},{"deck":[]}]},{"type":"2v2","team":null}]`},
		{"keys then exclude", battles, answerShape{}, "team,arena", "team.deck,arena.id", `[{"team":[{"tag":"A"},{"tag":"B"}],"arena":{"name":"x"}},{"team":null}]`},
		{"exclude whole and nested", battles, answerShape{}, "", "arena,team.tag", `[{"type":"PvP","team":[{"deck":[1,2]},{"deck":[]}]},{"type":"2v2","team":null}]`},
		{"the answer's order, not the request's", `{"b":1,"a":2,"c":3}`, answerShape{}, "c,a", "", `{"a":2,"c":3}`},
		{"names needing escapes", `{"a\\b":1,"q\"":2,"z":3}`, answerShape{}, "", "z", `{"a\\b":1,"q\"":2}`},
		{"nothing named", battles, answerShape{}, ",", " . ", battles},
		{"scalar elements", `[1,"a",null]`, answerShape{}, "x", "", `[1,"a",null]`},
		{"a page", `[1,2,3,4,5]`, answerShape{pageSize: 2, page: 1}, "", "", `[3,4]`},
		{"the last, short page", `[1,2,3,4,5]`, answerShape{pageSize: 2, page: 2}, "", "", `[5]`},
		{"beyond the end", `[1,2,3,4,5]`, answerShape{pageSize: 2, page: 3}, "", "", `[]`},
		{"paging an object", `{"a":1}`, answerShape{pageSize: 2, page: 3}, "", "", `{"a":1}`},
		{"by slot", `{"2026-01-01-00-00":{"score":1,"members":[]},"2026-01-01-04-00":{"score":2,"members":[]}}`, answerShape{bySlot: true}, "score", "",
			`{"2026-01-01-00-00":{"score":1},"2026-01-01-04-00":{"score":2}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := shapeBody([]byte(tt.body), tt.shape, parseFieldSet([]byte(tt.keys)), parseFieldSet([]byte(tt.exclude)))
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v\nwant %s", got, err, tt.want)
			}
		})
	}
}
