package keys

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"sync"
)

// Labels of the sub-keys derived from the secret: HMAC-SHA256(secret,
// label). Changing one of the first two makes every stored key unknown;
// the third names keys in memory only.
const (
	digestKeyLabel  = "crowns/keys/lookup-digest/v1"
	sealingKeyLabel = "crowns/keys/aes-256-gcm/v1"
	cacheIDKeyLabel = "crowns/keys/cache-id/aes-128-cbc/v1"
)

// digest is the keyed lookup digest of a key: HMAC-SHA256 under the
// digest sub-key.
type digest [sha256.Size]byte

// keyring holds what the secret derives: the sub-key of lookup digests
// and the AEAD that seals keys for reminders.
type keyring struct {
	digestKey []byte
	aead      cipher.AEAD
	// cacheIDs encrypts keys into their cacheIDs, in buffers from
	// cacheIDBuffers: a buffer handed to the cipher's interface escapes,
	// so one on the stack would be allocated on every verification, and
	// a cached answer allocates nothing (TestCachedAnswersAllocateNothing
	// in package api holds it to that).
	cacheIDs       cipher.Block
	cacheIDBuffers sync.Pool
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
	cacheIDs, err := aes.NewCipher(deriveSubKey(secret, cacheIDKeyLabel)[:16])
	if err != nil {
		return nil, fmt.Errorf("key cache names: %w", err)
	}
	ring := &keyring{digestKey: digestKey, aead: aead, cacheIDs: cacheIDs}
	ring.cacheIDBuffers.New = func() any { return new(cacheID) }
	return ring, nil
}

func deriveSubKey(secret []byte, label string) []byte {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(label))
	return mac.Sum(nil)
}

// digest returns the lookup digest of raw.
func (k *keyring) digest(raw string) digest {
	// Made anew each time: a digest is needed only when the cache does
	// not know the key (a database lookup follows) or a key is issued.
	mac := hmac.New(sha256.New, k.digestKey)
	mac.Write([]byte(raw))
	var out digest
	mac.Sum(out[:0])
	return out
}

// cacheID is the name of a key in the verification cache: the key's
// characters after the prefix, zero-padded to three AES blocks and
// encrypted in CBC mode with a zero IV under the cache sub-key. The
// encryption is one-to-one, so two keys share a cacheID only when they
// are equal. The plaintext is overwritten block by block as it is
// encrypted. Three AES blocks cost a fraction of the HMAC of the lookup
// digest, which a verification then needs only when the cache does not
// know the key. raw has the shape of a key (hasKeyShape).
func (k *keyring) cacheID(raw string) cacheID {
	buf := k.cacheIDBuffers.Get().(*cacheID)
	clear(buf[copy(buf[:], raw[len(Prefix):]):])
	for i := 0; i < len(buf); i += aes.BlockSize {
		block := buf[i : i+aes.BlockSize]
		if i > 0 {
			subtle.XORBytes(block, block, buf[i-aes.BlockSize:i])
		}
		k.cacheIDs.Encrypt(block, block)
	}
	id := *buf
	k.cacheIDBuffers.Put(buf)
	return id
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
