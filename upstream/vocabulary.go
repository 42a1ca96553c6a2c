package upstream

import "strings"

// vocabularyKey folds an enum value for comparison, so that "inviteOnly",
// "INVITE_ONLY", "invite only" and "inviteonly" read the same.
func vocabularyKey(value string) string {
	return strings.ToLower(strings.Map(dropSeparator, value))
}

// dropSeparator drops the underscores and spaces of an enum value.
func dropSeparator(r rune) rune {
	if r == '_' || r == ' ' {
		return -1
	}
	return r
}

// matchSpelling finds the one of spellings that reads the same as the
// upstream value.
func matchSpelling(upstream string, spellings ...string) (string, bool) {
	key := vocabularyKey(upstream)
	for _, s := range spellings {
		if vocabularyKey(s) == key {
			return s, true
		}
	}
	return "", false
}

// respell spells an upstream enum value as one of spellings, or keeps it
// as given when none matches.
func respell(upstream string, spellings ...string) string {
	if s, ok := matchSpelling(upstream, spellings...); ok {
		return s
	}
	return upstream
}

// respellOr spells an upstream enum value as one of spellings, or as
// other when none matches: for a value whose every spelling clients are
// promised.
func respellOr(other, upstream string, spellings ...string) string {
	if s, ok := matchSpelling(upstream, spellings...); ok {
		return s
	}
	return other
}
