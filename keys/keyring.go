package keys

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"sync"
)

// Labels of the sub-keys derived from the secret: HMAC-SHA256(secret,
// label). Changing one makes every stored key unknown.
const (
	digestKeyLabel  = "crowns/keys/lookup-digest/v1"
	sealingKeyLabel = "crowns/keys/aes-256-gcm/v1"
)

// digest is the keyed lookup digest of a key: HMAC-SHA256 under the
// digest sub-key.
type digest [sha256.Size]byte

// keyring holds what the secret derives: the HMAC for lookup digests and
// the AEAD that seals keys for reminders.
type keyring struct {
	aead cipher.AEAD
	// digesters pools keyed HMAC states, so computing a digest on the
	// verification hot path allocates nothing.
	digesters sync.Pool
}

// digester is one reusable HMAC with room for its input and output.
type digester struct {
	mac   hash.Hash
	input [KeyLength]byte
	sum   [sha256.Size]byte
}

func newKeyring(secret []byte) (*keyring, error) {
	if len(secret) < MinSecretLength {
		return nil, fmt.Errorf("secret has %d bytes, want at least %d", len(secret), MinSecretLength)
	}
	digestKey := deriveSubKey(secret, digestKeyLabel)
	block, err := aes.NewCipher(deriveSubKey(secret, sealingKeyLabel))
	if err != nil {
		return nil, fmt.Errorf("key encryption: %w", err)
	}
	// A random 12-byte nonce per seal, prepended to the ciphertext.
	aead, err := cipher.NewGCMWithRandomNonce(block)
	if err != nil {
		return nil, fmt.Errorf("key encryption: %w", err)
	}
	ring := &keyring{aead: aead}
	ring.digesters.New = func() any { return &digester{mac: hmac.New(sha256.New, digestKey)} }
	return ring, nil
}

func deriveSubKey(secret []byte, label string) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(label))
	return mac.Sum(nil)
}

// digest returns the lookup digest of raw, a key of KeyLength characters
// (longer input is digested correctly, only less cheaply).
func (k *keyring) digest(raw string) digest {
	d := k.digesters.Get().(*digester)
	d.mac.Reset()
	if len(raw) <= len(d.input) {
		n := copy(d.input[:], raw)
		d.mac.Write(d.input[:n])
		clear(d.input[:n]) // no plaintext left behind in the pool
	} else {
		d.mac.Write([]byte(raw))
	}
	var out digest
	copy(out[:], d.mac.Sum(d.sum[:0]))
	k.digesters.Put(d)
	return out
}

// seal encrypts raw for storage, bound to its digest as additional data so
// a ciphertext cannot be moved to another row: nonce || ciphertext.
func (k *keyring) seal(raw string, lookup digest) []byte {
	return k.aead.Seal(nil, nil, []byte(raw), lookup[:])
}

// open decrypts what seal stored for the key with this digest.
func (k *keyring) open(sealed []byte, lookup digest) (string, error) {
	plain, err := k.aead.Open(nil, nil, sealed, lookup[:])
	if err != nil {
		return "", errors.New("cannot decrypt the stored key: the secret differs from the one it was issued under, or the row was altered")
	}
	return string(plain), nil
}
