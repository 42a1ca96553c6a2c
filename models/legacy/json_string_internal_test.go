package legacy

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestAppendJSONStringWritesWhatEncodingJSONWrites compares the hand-written
// string encoder with encoding/json on every byte value, escapes, HTML
// characters, line separators and invalid UTF-8.
func TestAppendJSONStringWritesWhatEncodingJSONWrites(t *testing.T) {
	cases := []string{"", "plain", "Zoë ☃ 𝄞", `quote " back \ slash`, "<b>&amp;</b>", "line\u2028para\u2029", "\x00\x01\x1f\x7f",
		"\b\f\n\r\t", "bad \xff utf8 \xc3", "\xe2\x80", "tail\xe2\x80\xa8"}
	for b := 0; b < 256; b++ {
		cases = append(cases, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	for r := rune(0x80); r < 0x3000; r += 7 {
		cases = append(cases, string(r)+string(utf8.RuneError))
	}
	for _, s := range cases {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("%q: got %s, want %s", s, got[1:], want)
		}
	}
}

// FuzzAppendJSONString holds the encoder to encoding/json on any input.
func FuzzAppendJSONString(f *testing.F) {
	f.Add("Zoë <&> \u2028 \xff")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}
