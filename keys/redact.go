package keys

import "strings"

// redactedKey replaces a key, or what looks like the start of one, in
// text that is logged.
const redactedKey = Prefix + redactedMark

// redactedMark follows the prefix where a key was redacted.
const redactedMark = "[redacted]"

// Redact returns s with every key in it, and every fragment that starts
// like one (the prefix and the base62 characters after it), replaced by
// "crw_[redacted]": for text a client sent that is logged, such as the
// path of a request no route matched, where a key may have been put by
// mistake. Text redacted already is left as it is (Redact(Redact(s)) is
// Redact(s)), so that text stored redacted can be redacted again. It
// allocates only when s holds the prefix.
func Redact(s string) string {
	if !strings.Contains(s, Prefix) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, Prefix)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(redactedKey)
		s = s[i+len(Prefix):]
		if strings.HasPrefix(s, redactedMark) {
			s = s[len(redactedMark):]
			continue
		}
		// The run stops where another key starts: its prefix's "crw" is
		// base62 too, and the run would take it and leave the rest.
		end := 0
		for end < len(s) && inAlphabet(s[end]) && !strings.HasPrefix(s[end:], Prefix) {
			end++
		}
		s = s[end:]
	}
}
