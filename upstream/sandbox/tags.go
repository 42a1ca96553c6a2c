package sandbox

import (
	"math/bits"
	"strings"

	"github.com/crownsdev/crowns/models"
)

// tagDigits is the game's base-14 tag alphabet in digit order.
const tagDigits = "0289PYLQGRJCUV"

// tagCodec turns entity numbers into tags of a fixed length and back. The
// number goes through an affine bijection modulo the tag space, so tags of
// neighbouring entities look unrelated; the first digit is never '0'.
type tagCodec struct {
	length  int
	space   uint64 // 13 * 14^(length-1)
	factor  uint64
	inverse uint64
	offset  uint64
}

// newTagCodec builds the codec of one kind of entity.
func newTagCodec(length int, seed, salt uint64) tagCodec {
	space := uint64(13)
	for range length - 1 {
		space *= 14
	}
	// A factor coprime with the space (whose prime factors are 2, 7 and 13).
	factor := hashOf(seed, salt, 1)%space | 1
	for factor%7 == 0 || factor%13 == 0 {
		factor += 2
	}
	return tagCodec{length: length, space: space, factor: factor, inverse: modInverse(factor, space), offset: hashOf(seed, salt, 2) % space}
}

// encode is the tag of entity number n (n < space).
func (c tagCodec) encode(n int) string {
	x := (mulMod(uint64(n), c.factor, c.space) + c.offset) % c.space
	digits := make([]byte, c.length)
	for i := c.length - 1; i > 0; i-- {
		digits[i] = tagDigits[x%14]
		x /= 14
	}
	digits[0] = tagDigits[x+1]
	return string(digits)
}

// decode is the entity number of tag, or false for a tag this codec never
// produces.
func (c tagCodec) decode(tag string) (int, bool) {
	if len(tag) != c.length {
		return 0, false
	}
	var x uint64
	for i := 0; i < len(tag); i++ {
		d := strings.IndexByte(tagDigits, tag[i])
		if d < 0 || (i == 0 && d == 0) {
			return 0, false
		}
		if i == 0 {
			d--
		}
		x = x*14 + uint64(d)
	}
	n := mulMod((x+c.space-c.offset)%c.space, c.inverse, c.space)
	return int(n), true
}

// pathTag reads the tag of an official path segment: '#' followed by the
// tag. Lower-case letters are accepted as the game does.
func pathTag(segment string) (string, bool) {
	tag, ok := strings.CutPrefix(segment, "#")
	if !ok {
		return "", false
	}
	tag = strings.ToUpper(tag)
	return tag, len(tag) >= models.MinTagLength && len(tag) <= models.MaxTagLength
}

func mulMod(a, b, m uint64) uint64 {
	hi, lo := bits.Mul64(a%m, b%m)
	_, rem := bits.Div64(hi, lo, m)
	return rem
}

// modInverse is the inverse of a modulo m (a and m coprime), by the
// extended Euclidean algorithm.
func modInverse(a, m uint64) uint64 {
	t, newT := int64(0), int64(1)
	r, newR := int64(m), int64(a%m)
	for newR != 0 {
		q := r / newR
		t, newT = newT, t-q*newT
		r, newR = newR, r-q*newR
	}
	if t < 0 {
		t += int64(m)
	}
	return uint64(t)
}
