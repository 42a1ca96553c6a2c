package models

import (
	"strings"
	"unicode/utf8"
)

// TagAlphabet is the set of characters a game tag is made of.
const TagAlphabet = "0289CGJLPQRUVY"

// Tag length bounds, inclusive.
const (
	MinTagLength = 3
	MaxTagLength = 14
)

// NormalizeTag turns a tag as a person wrote it (a command's argument, a
// Discord option) into the stored form: surrounding spaces are trimmed, a
// leading "#" (or its escaped form "%23", as copied from a URL) is
// stripped, letters are upper-cased and the letter O is read as the digit
// 0. It returns a ValidationError, worded per the public contract, for a
// tag that is too long, has characters outside TagAlphabet, or is too
// short.
func NormalizeTag(raw string) (string, error) {
	tag := strings.TrimSpace(raw)
	switch {
	case strings.HasPrefix(tag, "#"):
		tag = tag[1:]
	case len(tag) >= 3 && strings.EqualFold(tag[:3], "%23"):
		tag = tag[3:]
	}
	return normalizeBareTag(tag)
}

// NormalizeURLTag is NormalizeTag of a tag read from a URL's path, its
// percent-escapes already decoded (so "%23" arrived as "#", stripped
// here, and is not decoded twice): nothing is trimmed, since a URL
// carries no space but an escaped one, which is an illegal character like
// any other.
func NormalizeURLTag(decoded string) (string, error) {
	return normalizeBareTag(strings.TrimPrefix(decoded, "#"))
}

// normalizeBareTag is NormalizeTag of a tag without its "#".
func normalizeBareTag(tag string) (string, error) {
	// The contract's lengths are characters: a tag of few characters
	// outside the alphabet but many bytes (É is two) is illegal, not too
	// long. Bytes bound characters, so most tags are not counted.
	if len(tag) > MaxTagLength && utf8.RuneCountInString(tag) > MaxTagLength {
		return "", Invalid("tag too long")
	}
	if inTagAlphabet(tag) {
		// Already in the stored form, as most callers write tags: no
		// copy.
		if len(tag) < MinTagLength {
			return "", Invalid("tag too short")
		}
		return tag, nil
	}
	tag = strings.ReplaceAll(strings.ToUpper(tag), "O", "0")
	for _, r := range tag {
		if !strings.ContainsRune(TagAlphabet, r) {
			return "", Invalid("illegal characters in tag '%s' (allowed: %s)", tag, TagAlphabet)
		}
	}
	if len(tag) < MinTagLength {
		return "", Invalid("tag too short")
	}
	return tag, nil
}

// inTagAlphabet reports whether every byte of tag is one of TagAlphabet.
func inTagAlphabet(tag string) bool {
	for i := 0; i < len(tag); i++ {
		switch tag[i] {
		case '0', '2', '8', '9', 'C', 'G', 'J', 'L', 'P', 'Q', 'R', 'U', 'V', 'Y':
		default:
			return false
		}
	}
	return true
}
