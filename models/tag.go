package models

import "strings"

// TagAlphabet is the set of characters a game tag is made of.
const TagAlphabet = "0289CGJLPQRUVY"

// Tag length bounds, inclusive.
const (
	MinTagLength = 3
	MaxTagLength = 14
)

// NormalizeTag turns a tag as a caller wrote it into the stored form: a
// leading "#" is stripped (a URL's "%23" is decoded where the URL is
// read), letters are upper-cased and the letter O is read as the digit 0.
// It returns a ValidationError, worded per the public contract, for a tag
// that is too long, has characters outside TagAlphabet, or is too short.
func NormalizeTag(raw string) (string, error) {
	tag := strings.TrimSpace(raw)
	tag = strings.TrimPrefix(tag, "#")
	if len(tag) > MaxTagLength {
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
