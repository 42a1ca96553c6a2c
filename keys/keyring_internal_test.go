package keys

import (
	"bytes"
	"strings"
	"testing"
)

// TestCacheIDsAreOneToOne: a key's cacheID is the same every time, and
// changing any one character of the key changes both the cacheID and its
// map index; another secret names the same key differently, and the
// cacheID shows none of the key's characters.
func TestCacheIDsAreOneToOne(t *testing.T) {
	ring, err := newKeyring(bytes.Repeat([]byte{7}, MinSecretLength))
	if err != nil {
		t.Fatal(err)
	}
	other, err := newKeyring(bytes.Repeat([]byte{8}, MinSecretLength))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	id := ring.cacheID(raw)
	if again := ring.cacheID(raw); again != id {
		t.Fatal("one key has two cacheIDs")
	}
	if other.cacheID(raw) == id {
		t.Fatal("two secrets give a key the same cacheID")
	}
	for i := len(Prefix); i < KeyLength; i++ {
		changed := []byte(raw)
		changed[i] = 'A' + (changed[i]+1)%26
		if changed[i] == raw[i] {
			changed[i]++
		}
		otherID := ring.cacheID(string(changed))
		if otherID == id || [16]byte(otherID[32:]) == [16]byte(id[32:]) {
			t.Fatalf("changing character %d left the cacheID or its last block as it was", i+1)
		}
	}
	if strings.Contains(string(id[:]), raw[len(Prefix):len(Prefix)+8]) {
		t.Fatal("the cacheID shows characters of the key")
	}
}
