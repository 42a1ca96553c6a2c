// The allocation test runs apart, without the race detector, built with
// the allocations tag: without this file, it needs none of its libraries
// compiled a second time (see .ci/run).

//go:build !allocations

package api_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestSeveralTournamentsAsTheDocumentWritesTheirTags sends the lookup of
// several tournaments the way a client generated from the document
// writes its path (OpenAPI's simple style, RFC 6570): a string parameter
// is percent-encoded whole, commas included, and an array's items are
// joined by plain commas. The server reads only plain commas as
// separators (%2C is part of a tag), so the document must declare the
// tags as an array for generated clients to get the array answer.
func TestSeveralTournamentsAsTheDocumentWritesTheirTags(t *testing.T) {
	h := newTournamentHarness(t)
	key := h.issue("910")
	tags := h.world.TournamentTags()[:2]
	for _, route := range []string{"/tournament/{tags}", "/tournaments/{tags}"} {
		item := documentModel(t, h).Paths.Value(route)
		if item == nil || item.Get == nil {
			t.Fatalf("GET %s is not in the document", route)
		}
		param := pathParameter(item.Get.Parameters, "tags")
		if param == nil {
			t.Fatalf("GET %s: no path parameter tags", route)
		}
		path := strings.Replace(route, "{tags}", simpleStyle(param, tags), 1)
		resp := h.get(path, "auth", key)
		var answer []map[string]any
		if resp.StatusCode != http.StatusOK || json.Unmarshal(readBody(t, resp), &answer) != nil || len(answer) != len(tags) {
			t.Errorf("GET %s (as the document writes %v): status %d, want 200 and an array of %d", path, tags, resp.StatusCode, len(tags))
		}
	}
}

// pathParameter is the path parameter name of parameters, or nil.
func pathParameter(parameters openapi3.Parameters, name string) *openapi3.Parameter {
	for _, ref := range parameters {
		if p := ref.Value; p.In == "path" && p.Name == name {
			return p
		}
	}
	return nil
}

// simpleStyle writes values as a path parameter of the simple style
// without explode (a path parameter's default and only useful style):
// an array's items each percent-encoded and joined by commas, any other
// value, here the values written with commas, percent-encoded whole.
func simpleStyle(param *openapi3.Parameter, values []string) string {
	if param.Style != "" && param.Style != "simple" {
		return "(style " + param.Style + ")"
	}
	if param.Schema != nil && param.Schema.Value.Type.Is(openapi3.TypeArray) {
		escaped := make([]string, len(values))
		for i, v := range values {
			escaped[i] = url.PathEscape(v)
		}
		return strings.Join(escaped, ",")
	}
	return url.PathEscape(strings.Join(values, ","))
}
