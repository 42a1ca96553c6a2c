package keys

import (
	"bytes"
	"strings"
	"testing"
)

func TestGenerateRejectsBiasedBytes(t *testing.T) {
	// 248..255 would map onto the first eight symbols a second time; the
	// generator must skip them and use the next bytes instead: 0→'0',
	// 61→'z', 62→'0', 247→'z'.
	random := bytes.Repeat([]byte{255, 248, 0, 61, 62, 247}, 64)
	key, err := generate(bytes.NewReader(random))
	if err != nil {
		t.Fatal(err)
	}
	got := key[len(Prefix) : len(Prefix)+RandomLength]
	if got != strings.Repeat("0z0z", 8)[:30] {
		t.Fatalf("random part %q, want the bytes below 248 only, mapped modulo 62", got)
	}
	if err := CheckFormat(key); err != nil {
		t.Fatal(err)
	}
}

func TestGenerateFailsOnShortRandomness(t *testing.T) {
	if _, err := generate(bytes.NewReader(make([]byte, 10))); err == nil {
		t.Fatal("generate succeeded with 10 random bytes")
	}
}

func TestInAlphabetIsExactlyBase62(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := strings.IndexByte(base62, byte(c)) >= 0
		if got := inAlphabet(byte(c)); got != want {
			t.Errorf("inAlphabet(%d) = %v, want %v", c, got, want)
		}
	}
}
