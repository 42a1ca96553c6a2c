package models_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/crownsdev/crowns/models"
)

func TestStorableText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"Royal Crowns", "Royal Crowns"},
		{"a\x00b", "a\uFFFDb"},
		{"\x00\x00", "\uFFFD\uFFFD"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"Ünïcødé ✓", "Ünïcødé ✓"},
	} {
		if got := models.StorableText(tt.in); got != tt.want {
			t.Errorf("StorableText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A JSON text made storable decodes to the strings StorableText makes
// of what it decoded to before.
func TestMakeJSONStorable(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`"plain"`, "plain"},
		{`"a\u0000b"`, "a\uFFFDb"},
		{`"\u0000\u0000"`, "\uFFFD\uFFFD"},
		{`"\\u0000"`, `\u0000`},
		{`"\\\u0000"`, "\\\uFFFD"},
		{`"\\\\u0000"`, `\\u0000`},
		{`"a\u00001"`, "a\uFFFD1"},
	} {
		body := []byte(tt.in)
		models.MakeJSONStorable(body)
		var got string
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("%s made storable is %s, which does not decode: %v", tt.in, body, err)
		}
		var before string
		if err := json.Unmarshal([]byte(tt.in), &before); err != nil {
			t.Fatal(err)
		}
		if got != tt.want || got != models.StorableText(before) {
			t.Errorf("%s decodes to %q once storable, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzMakeJSONStorable checks MakeJSONStorable on any JSON text, as the
// game API may write it: it still decodes, to the values StorableText
// makes of every string (and object name) it decoded to before.
func FuzzMakeJSONStorable(f *testing.F) {
	for _, seed := range []string{
		`{"name":"a\u0000b","tag":"#2PP"}`, `["\\u0000","\\\u0000",{"\u0000":"\\\\u0000"}]`,
		`{"memberList":[{"name":"\u00001\ud83d\ude00","role":"elder"}]}`, `"bad \xff byte"`, `null`, `1e3`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var before any
		if json.Unmarshal(body, &before) != nil {
			return
		}
		storable := bytes.Clone(body)
		models.MakeJSONStorable(storable)
		var after any
		if err := json.Unmarshal(storable, &after); err != nil {
			t.Fatalf("%q made storable is %q, which does not decode: %v", body, storable, err)
		}
		if want := storableValue(before); !reflect.DeepEqual(after, want) {
			t.Fatalf("%q made storable decodes to %#v, want %#v", body, after, want)
		}
	})
}

// storableValue is v with StorableText applied to each of its strings.
func storableValue(v any) any {
	switch v := v.(type) {
	case string:
		return models.StorableText(v)
	case []any:
		out := make([]any, len(v))
		for i, element := range v {
			out[i] = storableValue(element)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for name, field := range v {
			out[models.StorableText(name)] = storableValue(field)
		}
		return out
	}
	return v
}
