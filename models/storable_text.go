package models

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Text from outside Crowns (the game API's answers, names and reasons
// typed in Discord or given to the crowns command) may carry a NUL
// (U+0000) or invalid UTF-8, which PostgreSQL refuses in text columns
// (SQLSTATE 22021) while SQLite keeps them: one such name would fail
// every write of the row it is in. Where such text enters, Crowns
// replaces both with U+FFFD, the replacement character, so that it is
// stored alike on either engine and answered alike whether it is read
// from the game API or from the database.

// StorableText is s with every NUL and every invalid UTF-8 sequence
// replaced by U+FFFD; s itself when it has neither.
func StorableText(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// jsonNUL and jsonReplacement are the JSON escapes of U+0000 and U+FFFD,
// of the same length.
var (
	jsonNUL         = []byte(`\u0000`)
	jsonReplacement = []byte(`\ufffd`)
)

// MakeJSONStorable rewrites, in place, every \u0000 escape of the JSON
// text body into \ufffd, so that every string decoded from it is what
// StorableText makes of it: decoding already turns invalid UTF-8 into
// U+FFFD, and a NUL can only be written escaped. A \u0000 that follows an
// escaped backslash (\\u0000, the six characters "\u0000") is text and is
// kept.
func MakeJSONStorable(body []byte) {
	for from := 0; ; {
		i := bytes.Index(body[from:], jsonNUL)
		if i < 0 {
			return
		}
		at := from + i
		backslashes := 0
		for j := at - 1; j >= 0 && body[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			copy(body[at:], jsonReplacement)
		}
		from = at + len(jsonNUL)
	}
}
