package upstream

import "strings"

// vocabularyKey folds an enum value for comparison, so that "inviteOnly",
// "INVITE_ONLY", "invite only" and "inviteonly" read the same.
func vocabularyKey(value string) string {
	return strings.ToLower(strings.NewReplacer("_", "", " ", "").Replace(value))
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
