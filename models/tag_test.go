package models_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/models"
)

func TestNormalizeTag(t *testing.T) {
	tests := []struct {
		raw     string
		want    string
		wantErr string
	}{
		{raw: "2CCCP", want: "2CCCP"},
		{raw: "#2cccp", want: "2CCCP"},
		{raw: "#pyolq", want: "PY0LQ"},
		{raw: " %232CCCP ", want: "2CCCP"},
		{raw: "%23pyolq", want: "PY0LQ"},
		{raw: "o2o", want: "020"},
		{raw: "22", wantErr: "tag too short"},
		{raw: "#", wantErr: "tag too short"},
		{raw: "%23", wantErr: "tag too short"},
		{raw: "#o2", wantErr: "tag too short"},
		{raw: "2c", wantErr: "tag too short"},
		{raw: "", wantErr: "tag too short"},
		{raw: "222222222222222", wantErr: "tag too long"},
		{raw: "22222222222222", want: "22222222222222"},
		// Lengths are counted in characters, not bytes: eight É (16 bytes)
		// are not too long, but illegal; fifteen of them are too long.
		{raw: "ÉÉÉÉÉÉÉÉ", wantErr: "illegal characters in tag 'ÉÉÉÉÉÉÉÉ' (allowed: 0289CGJLPQRUVY)"},
		{raw: "2CCCP2CCCP22✓", wantErr: "illegal characters in tag '2CCCP2CCCP22✓' (allowed: 0289CGJLPQRUVY)"},
		{raw: strings.Repeat("É", 15), wantErr: "tag too long"},
		{raw: "ABC", wantErr: "illegal characters in tag 'ABC' (allowed: 0289CGJLPQRUVY)"},
		{raw: "2CC CP", wantErr: "illegal characters in tag '2CC CP' (allowed: 0289CGJLPQRUVY)"},
		{raw: "2CC#P", wantErr: "illegal characters in tag '2CC#P' (allowed: 0289CGJLPQRUVY)"},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			got, err := models.NormalizeTag(tt.raw)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("NormalizeTag(%q) error = %v, want %q", tt.raw, err, tt.wantErr)
				}
				if !errors.Is(err, models.ErrInvalid) {
					t.Fatalf("error %v is not ErrInvalid", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("NormalizeTag(%q) = %q, %v; want %q", tt.raw, got, err, tt.want)
			}
		})
	}
}

// TestNormalizeURLTag: a tag from a URL, already percent-decoded, loses
// its "#" but is not decoded again nor trimmed.
func TestNormalizeURLTag(t *testing.T) {
	for _, tt := range []struct{ decoded, want, wantErr string }{
		{decoded: "#2cccp", want: "2CCCP"},
		{decoded: "2CCCP", want: "2CCCP"},
		{decoded: "%232CCCP", wantErr: "illegal characters in tag '%232CCCP' (allowed: 0289CGJLPQRUVY)"},
		{decoded: " 2CCCP", wantErr: "illegal characters in tag ' 2CCCP' (allowed: 0289CGJLPQRUVY)"},
		{decoded: "22Q\n", wantErr: "illegal characters in tag '22Q\n' (allowed: 0289CGJLPQRUVY)"},
	} {
		got, err := models.NormalizeURLTag(tt.decoded)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("NormalizeURLTag(%q) = %q, %v; want error %q", tt.decoded, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("NormalizeURLTag(%q) = %q, %v; want %q", tt.decoded, got, err, tt.want)
		}
	}
}

// TestNormalizeTagKeepsExactlyTheAlphabet: a tag is returned as given
// exactly when every character is of TagAlphabet; any other byte is
// changed (lower case, O) or refused.
func TestNormalizeTagKeepsExactlyTheAlphabet(t *testing.T) {
	for b := range 256 {
		raw := "22" + string([]byte{byte(b)}) + "2"
		got, err := models.NormalizeTag(raw)
		inAlphabet := strings.IndexByte(models.TagAlphabet, byte(b)) >= 0
		if unchanged := err == nil && got == raw; unchanged != inAlphabet {
			t.Fatalf("NormalizeTag(%q) = %q, %v; byte %#x in the alphabet: %v", raw, got, err, b, inAlphabet)
		}
	}
}
