package keys_test

import (
	"errors"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// referenceKey builds a key from its random part with the standard
// library's CRC-32, independently of the package's own checksum code.
func referenceKey(random string) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	sum := crc32.ChecksumIEEE([]byte(random))
	var digits [6]byte
	for i := 5; i >= 0; i-- {
		digits[i] = alphabet[sum%62]
		sum /= 62
	}
	return "crw_" + random + string(digits[:])
}

func TestCheckFormat(t *testing.T) {
	valid := referenceKey("abcdefghijABCDEFGHIJ0123456789")
	zeros := referenceKey(strings.Repeat("0", 30))
	flipLast := valid[:39] + string(rune(valid[39]^1))
	tests := []struct {
		name string
		raw  string
		ok   bool
	}{
		{"reference key", valid, true},
		{"all-zero random part", zeros, true},
		{"empty", "", false},
		{"prefix only", "crw_", false},
		{"one character short", valid[:39], false},
		{"one character long", valid + "0", false},
		{"upper-case prefix", "CRW_" + valid[4:], false},
		{"other prefix", "crx_" + valid[4:], false},
		{"dash in random part", valid[:10] + "-" + valid[11:], false},
		{"non-ASCII in random part", valid[:10] + "é" + valid[12:], false},
		{"space in checksum", valid[:38] + " " + valid[39:], false},
		{"checksum off by one character", flipLast, false},
		{"random part changed", "crw_b" + valid[5:], false},
		{"bearer prefix left on", "Bearer " + valid, false},
		{"leading space", " " + valid[:39], false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := keys.CheckFormat(tt.raw)
			if tt.ok {
				if err != nil {
					t.Fatalf("CheckFormat(%q) = %v, want nil", tt.raw, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckFormat(%q) accepted a malformed key", tt.raw)
			}
			if !errors.Is(err, models.ErrUnknownKey) {
				t.Errorf("error %v is not ErrUnknownKey", err)
			}
			if len(tt.raw) > 4 && strings.Contains(err.Error(), tt.raw[4:]) {
				t.Errorf("error %q repeats the key", err)
			}
		})
	}
}

func TestNewKeyIsWellFormedAndUnique(t *testing.T) {
	seen := make(map[string]bool)
	counts := make(map[rune]int)
	const n = 2000
	for range n {
		key, err := keys.NewKey()
		if err != nil {
			t.Fatal(err)
		}
		if len(key) != keys.KeyLength || !strings.HasPrefix(key, keys.Prefix) {
			t.Fatalf("key %q has the wrong shape", key)
		}
		if err := keys.CheckFormat(key); err != nil {
			t.Fatalf("generated key rejected: %v", err)
		}
		if key != referenceKey(key[4:34]) {
			t.Fatalf("key %q: checksum differs from the standard CRC-32", key)
		}
		if seen[key] {
			t.Fatalf("key %q generated twice", key)
		}
		seen[key] = true
		for _, c := range key[4:34] {
			counts[c]++
		}
	}
	// 60,000 characters over 62 symbols: about 968 each. A generator that
	// skipped a symbol or favoured some (b%62 without rejection gives the
	// first 8 symbols 5/4 of the share) falls outside these bounds.
	if len(counts) != 62 {
		t.Fatalf("generated keys use %d distinct characters, want 62", len(counts))
	}
	for c, count := range counts {
		if count < 800 || count > 1140 {
			t.Errorf("character %q appears %d times in %d random characters, want about %d", c, count, n*30, n*30/62)
		}
	}
}

func FuzzCheckFormat(f *testing.F) {
	f.Add(referenceKey("abcdefghijABCDEFGHIJ0123456789"))
	f.Add(referenceKey(strings.Repeat("z", 30)))
	f.Add("crw_")
	f.Add("")
	f.Add("crw_abcdefghijABCDEFGHIJ0123456789000000")
	f.Fuzz(func(t *testing.T, raw string) {
		err := keys.CheckFormat(raw)
		wellFormed := len(raw) == 40 && strings.HasPrefix(raw, "crw_") &&
			strings.Trim(raw[4:], "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") == "" &&
			referenceKey(raw[4:34]) == raw
		if wellFormed != (err == nil) {
			t.Fatalf("CheckFormat(%q) = %v, reference says well-formed=%v", raw, err, wellFormed)
		}
		if err != nil && !errors.Is(err, models.ErrUnknownKey) {
			t.Fatalf("CheckFormat(%q) = %v, not ErrUnknownKey", raw, err)
		}
	})
}
