package official

import "time"

// TimeLayout is the official API's timestamp format, always in UTC.
const TimeLayout = "20060102T150405.000Z"

// FormatTime renders t in TimeLayout.
func FormatTime(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTime reads a TimeLayout timestamp; the zero time and false when s is
// empty or malformed.
func ParseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(TimeLayout, s)
	if err != nil {
		return time.Time{}, false
	}
	return t, true
}
