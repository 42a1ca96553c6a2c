package keys

import (
	"crypto/rand"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/crownsdev/crowns/models"
)

// The shape of a key: Prefix, RandomLength base62 characters from
// crypto/rand, then ChecksumLength base62 characters of the CRC-32 (IEEE)
// of the random part, left-padded with '0'.
const (
	Prefix         = "crw_"
	RandomLength   = 30
	ChecksumLength = 6
	// KeyLength is the length of every well-formed key.
	KeyLength = len(Prefix) + RandomLength + ChecksumLength
)

// base62 is the key alphabet, in the order of the digit values.
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// unbiasedByteLimit is the largest multiple of 62 a byte can hold (4×62):
// random bytes at or above it are discarded so every character is equally
// likely.
const unbiasedByteLimit = 248

// FormatError says why a string is not a well-formed key. It never
// contains the string itself, and errors.Is(err, models.ErrUnknownKey)
// holds.
type FormatError struct {
	Reason string
}

// Error says why the key is malformed, without the key.
func (e *FormatError) Error() string { return "malformed key: " + e.Reason }

// Is makes errors.Is(err, models.ErrUnknownKey) true: a malformed key is
// an unknown key.
func (e *FormatError) Is(target error) bool { return target == models.ErrUnknownKey }

// CheckFormat reports whether raw has the shape of a key: prefix, length,
// alphabet and checksum. It touches no database and allocates nothing for
// a well-formed key.
func CheckFormat(raw string) error {
	if len(raw) != KeyLength {
		return &FormatError{Reason: fmt.Sprintf("want %d characters, got %d", KeyLength, len(raw))}
	}
	if raw[:len(Prefix)] != Prefix {
		return &FormatError{Reason: "want prefix " + Prefix}
	}
	for i := len(Prefix); i < KeyLength; i++ {
		if !inAlphabet(raw[i]) {
			return &FormatError{Reason: fmt.Sprintf("character %d is outside the base62 alphabet", i+1)}
		}
	}
	random := raw[len(Prefix) : len(Prefix)+RandomLength]
	want := encodeChecksum(checksum(random))
	if raw[len(Prefix)+RandomLength:] != string(want[:]) {
		return &FormatError{Reason: "checksum mismatch"}
	}
	return nil
}

// hasKeyShape is the cheap part of CheckFormat: the length and the
// prefix of a key.
func hasKeyShape(raw string) bool {
	return len(raw) == KeyLength && raw[:len(Prefix)] == Prefix
}

// generate returns a new key from random, which is crypto/rand.Reader
// outside tests.
func generate(random io.Reader) (string, error) {
	key := make([]byte, 0, KeyLength)
	key = append(key, Prefix...)
	var pool [64]byte
	for len(key) < len(Prefix)+RandomLength {
		if _, err := io.ReadFull(random, pool[:]); err != nil {
			return "", fmt.Errorf("read random bytes for a key: %w", err)
		}
		for _, b := range pool {
			if b >= unbiasedByteLimit || len(key) == len(Prefix)+RandomLength {
				continue
			}
			key = append(key, base62[b%62])
		}
	}
	sum := encodeChecksum(checksum(string(key[len(Prefix):])))
	return string(append(key, sum[:]...)), nil
}

// NewKey returns a new well-formed key from crypto/rand. The Service uses
// it for every key it issues; tests elsewhere use it for well-formed keys
// that no database knows.
func NewKey() (string, error) { return generate(rand.Reader) }

// checksum is the CRC-32 (IEEE) of s, computed by hand over the standard
// table so the hot path of CheckFormat does not allocate.
func checksum(s string) uint32 {
	crc := ^uint32(0)
	for i := 0; i < len(s); i++ {
		crc = crc32.IEEETable[byte(crc)^s[i]] ^ (crc >> 8)
	}
	return ^crc
}

// encodeChecksum writes sum in base62, left-padded with '0'. 62^6 exceeds
// 2^32, so six characters always suffice.
func encodeChecksum(sum uint32) [ChecksumLength]byte {
	var out [ChecksumLength]byte
	for i := ChecksumLength - 1; i >= 0; i-- {
		out[i] = base62[sum%62]
		sum /= 62
	}
	return out
}

// Bits of the base62 characters among bytes 0–63 (the digits) and 64–127
// (the letters).
const (
	alphabetLow  = uint64(1<<10-1) << '0'
	alphabetHigh = uint64(1<<26-1)<<('A'-64) | uint64(1<<26-1)<<('a'-64)
)

// inAlphabet reports whether c is a base62 character. Without branches
// on the character: a key's characters are random, and a branch per
// character range would be mispredicted often.
func inAlphabet(c byte) bool {
	bits := alphabetLow
	if c >= 64 {
		bits = alphabetHigh
	}
	return c < 128 && bits>>(c&63)&1 == 1
}
