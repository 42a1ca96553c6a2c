package models_test

import (
	"encoding/json"
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
