package legacy

import (
	"time"
	"unicode/utf8"

	"github.com/crownsdev/crowns/models"
)

// appendJSONString appends s as a JSON string exactly as encoding/json
// writes it (with its default HTML escaping): quotes, backslashes and
// control characters escaped, '<', '>' and '&' as \u003c and the like,
// invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	plainFrom := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			dst = append(dst, s[plainFrom:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			plainFrom = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(append(dst, s[plainFrom:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(append(dst, s[plainFrom:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		plainFrom = i
	}
	return append(append(dst, s[plainFrom:]...), '"')
}

// appendHistoryKey appends HistoryKey(slot).
func appendHistoryKey(dst []byte, slot time.Time) []byte {
	return slot.UTC().AppendFormat(dst, models.HistoryKeyLayout)
}
