package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/crownsdev/crowns/upstream/official"
)

// Page size bounds of lists.
const (
	defaultPageLimit = 100
	maxPageLimit     = 1000
)

// cursor is the content of a paging marker: the position in the list
// where a page starts (after) or ends (before). Markers are the base64 of
// its JSON, opaque to clients, like the official ones.
type cursor struct {
	Pos int `json:"pos"`
}

func encodeCursor(pos int) string {
	raw, _ := json.Marshal(cursor{Pos: pos})
	return base64.RawURLEncoding.EncodeToString(raw)
}

func decodeCursor(marker string) (int, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(marker)
	if err != nil {
		return 0, false
	}
	var c cursor
	if json.Unmarshal(raw, &c) != nil || c.Pos < 0 {
		return 0, false
	}
	return c.Pos, true
}

// page is the part [from, to) of a list that a request asked for, with the
// markers of the neighbouring pages.
type page struct {
	from, to int
	paging   *official.Paging
}

// pageOf reads limit, after and before for a list of total items. The
// error is a bad-request message for the client.
func pageOf(total int, q url.Values) (page, string) {
	limit, given, ok := intParam(q, "limit")
	switch {
	case !ok || (given && (limit < 1 || limit > maxPageLimit)):
		return page{}, "limit must be a number from 1 to " + strconv.Itoa(maxPageLimit)
	case !given:
		limit = defaultPageLimit
	}
	if q.Has("after") && q.Has("before") {
		return page{}, "only after or before can be specified for a request, not both"
	}
	from, to := 0, min(limit, total)
	if marker := q.Get("after"); q.Has("after") {
		pos, ok := decodeCursor(marker)
		if !ok {
			return page{}, "invalid after marker"
		}
		// pos+limit could overflow for a marker made up to point far
		// past the end: count from the start of the page instead.
		from = min(pos, total)
		to = from + min(limit, total-from)
	}
	if marker := q.Get("before"); q.Has("before") {
		pos, ok := decodeCursor(marker)
		if !ok {
			return page{}, "invalid before marker"
		}
		to = min(pos, total)
		from = max(to-limit, 0)
	}
	p := page{from: from, to: to, paging: &official.Paging{}}
	if to < total {
		p.paging.Cursors.After = encodeCursor(to)
	}
	if from > 0 {
		p.paging.Cursors.Before = encodeCursor(from)
	}
	return p, ""
}

// intParam reads an integer query parameter: its value, whether it was
// given, and whether it is a number.
func intParam(q url.Values, name string) (value int, given, ok bool) {
	if !q.Has(name) {
		return 0, false, true
	}
	value, err := strconv.Atoi(q.Get(name))
	return value, true, err == nil
}
