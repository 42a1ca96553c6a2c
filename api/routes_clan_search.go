package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
)

// Bounds of the clan search parameters.
const (
	searchNameMin     = 3
	searchNameMax     = 50
	searchScoreMax    = 100_000_000
	searchMembersMin  = 2
	searchMembersMax  = 50
	searchLimitMin    = 1
	searchLimitMax    = 100
	searchLimitDef    = 50
	searchCursorMax   = 256
	searchLocationMax = 1<<31 - 1
)

// errSearchNeedsFilter is the answer to a search without a counting filter.
var errSearchNeedsFilter = models.Invalid("at least one filter is required: name, score, minMembers or locationId")

// handleClanSearch answers GET /clan/search from the game upstream, through
// the response cache; a further page is announced in a Link header.
func (s *Server) handleClanSearch(c *fiber.Ctx) error {
	q, err := parseClanSearch(c)
	if err != nil {
		return err
	}
	var buf [128]byte
	key := searchCacheKey(buf[:0], q)
	now := s.requestNow(c)
	// A cached answer needs neither the request's context nor a game call,
	// nor a copy of the query's strings.
	if answer, hit := s.cache.get(key, now); hit {
		s.metrics.cacheLookup(cacheClanSearch, true)
		return s.sendAnswer(c, answer, true, string(key))
	}
	q = ownedSearchQuery(q)
	answer, hit, err := s.cache.fetch(s.requestCtx(c), now, string(key), s.cfg.RequestTimeout, s.gameCallOf(c, now),
		func(ctx context.Context) (*cachedAnswer, error) {
			page, err := s.deps.Game.SearchClans(ctx, q)
			if errors.Is(err, models.ErrInvalid) {
				return nil, rejectedSearch(q)
			}
			if err != nil {
				return nil, err
			}
			return renderSearchPage(q, page)
		})
	s.metrics.cacheLookup(cacheClanSearch, hit)
	if err != nil {
		return err
	}
	return s.sendAnswer(c, answer, hit, string(key))
}

func renderSearchPage(q legacy.ClanSearchQuery, page legacy.ClanSearchPage) (*cachedAnswer, error) {
	items := page.Items
	if items == nil {
		items = []legacy.ClanSearchResult{}
	}
	body, err := json.Marshal(items)
	if err != nil {
		return nil, fmt.Errorf("encode clan search: %w", err)
	}
	var links []string
	if page.After != "" {
		links = append(links, `</clan/search?`+searchParams(q, page.After, "").Encode()+`>; rel="next"`)
	}
	if page.Before != "" {
		links = append(links, `</clan/search?`+searchParams(q, "", page.Before).Encode()+`>; rel="prev"`)
	}
	if len(links) == 0 {
		return newCachedAnswer(body), nil
	}
	return newCachedAnswer(body, [2]string{fiber.HeaderLink, strings.Join(links, ", ")}), nil
}

// parseClanSearch validates the query of a clan search. Its strings share
// the request's memory (see transientQueryValue): ownedSearchQuery makes
// a query that may be kept.
func parseClanSearch(c *fiber.Ctx) (legacy.ClanSearchQuery, error) {
	q := legacy.ClanSearchQuery{MinScore: -1}
	counting := false
	name, ok, err := transientQueryValue(c, "name")
	if err != nil {
		return q, err
	}
	if ok {
		name = strings.TrimSpace(name)
		switch n := utf8.RuneCountInString(name); {
		case n < searchNameMin:
			return q, models.InvalidParam("name", "must be at least 3 characters")
		case n > searchNameMax:
			return q, models.InvalidParam("name", "must be at most 50 characters")
		}
		q.Name, counting = name, true
	}
	score, given, err := queryInt(c, "score", -1, 0, searchScoreMax)
	if err != nil {
		return q, err
	}
	q.MinScore, counting = score, counting || given
	if q.MinMembers, given, err = queryInt(c, "minMembers", 0, searchMembersMin, searchMembersMax); err != nil {
		return q, err
	}
	counting = counting || given
	if q.MaxMembers, _, err = queryInt(c, "maxMembers", 0, searchMembersMin, searchMembersMax); err != nil {
		return q, err
	}
	if q.MinMembers > 0 && q.MaxMembers > 0 && q.MinMembers > q.MaxMembers {
		return q, models.InvalidParam("maxMembers", "must not be less than minMembers")
	}
	if q.LocationID, given, err = queryInt(c, "locationId", 0, 1, searchLocationMax); err != nil {
		return q, err
	}
	counting = counting || given
	if q.Limit, _, err = queryInt(c, "limit", searchLimitDef, searchLimitMin, searchLimitMax); err != nil {
		return q, err
	}
	if q.After, err = cursorParam(c, "after"); err != nil {
		return q, err
	}
	if q.Before, err = cursorParam(c, "before"); err != nil {
		return q, err
	}
	if q.After != "" && q.Before != "" {
		return q, models.InvalidParam("before", "cannot be combined with 'after'")
	}
	if !counting {
		return q, errSearchNeedsFilter
	}
	return q, nil
}

// cursorParam reads a paging cursor: opaque, but printable and short.
func cursorParam(c *fiber.Ctx, name string) (string, error) {
	raw, ok, err := transientQueryValue(c, name)
	if err != nil || !ok {
		return "", err
	}
	if raw == "" || len(raw) > searchCursorMax {
		return "", errNotACursor(name)
	}
	for _, r := range raw {
		if r <= ' ' || r > '~' {
			return "", errNotACursor(name)
		}
	}
	return raw, nil
}

// errNotACursor is the answer to a cursor param that no previous page
// handed out: one this API can tell at sight, or one the game API refuses.
func errNotACursor(param string) error {
	return models.InvalidParam(param, "not a cursor from a previous page")
}

// rejectedSearch words a search the game API refused (its 400) in the
// contract's terms, naming one parameter; the game API does not say which
// one it disliked. The filters have passed parseClanSearch's own checks,
// while a cursor is opaque here and only the game API can judge it, so a
// refused search that carried a cursor (parseClanSearch lets at most one
// through) is blamed on that cursor, with the answer a malformed cursor
// gets. A refused search without a cursor is blamed on the first filter
// it carried, in the order name, score, minMembers, maxMembers,
// locationId; parseClanSearch guarantees there is one.
func rejectedSearch(q legacy.ClanSearchQuery) error {
	const refused = "rejected by the game API"
	switch {
	case q.After != "":
		return errNotACursor("after")
	case q.Before != "":
		return errNotACursor("before")
	case q.Name != "":
		return models.InvalidParam("name", refused)
	case q.MinScore >= 0:
		return models.InvalidParam("score", refused)
	case q.MinMembers > 0:
		return models.InvalidParam("minMembers", refused)
	case q.MaxMembers > 0:
		return models.InvalidParam("maxMembers", refused)
	case q.LocationID > 0:
		return models.InvalidParam("locationId", refused)
	}
	return errSearchNeedsFilter
}

// ownedSearchQuery is q with strings of its own, safe to keep after the
// request.
func ownedSearchQuery(q legacy.ClanSearchQuery) legacy.ClanSearchQuery {
	q.Name, q.After, q.Before = strings.Clone(q.Name), strings.Clone(q.After), strings.Clone(q.Before)
	return q
}

// searchCacheKey appends to key the name of the cached answer of a
// validated search: its fields in a fixed order, separated by a byte no
// parameter contains.
func searchCacheKey(key []byte, q legacy.ClanSearchQuery) []byte {
	key = append(key, "clan/search\x00"...)
	key = append(append(key, q.Name...), 0)
	for _, n := range [...]int{q.MinScore, q.MinMembers, q.MaxMembers, q.LocationID, q.Limit} {
		key = append(strconv.AppendInt(key, int64(n), 10), 0)
	}
	key = append(append(key, q.After...), 0)
	return append(key, q.Before...)
}

// searchParams renders a validated search back to query parameters, in a
// canonical order: the cache key and the Link targets.
func searchParams(q legacy.ClanSearchQuery, after, before string) url.Values {
	v := url.Values{}
	if q.Name != "" {
		v.Set("name", q.Name)
	}
	if q.MinScore >= 0 {
		v.Set("score", strconv.Itoa(q.MinScore))
	}
	if q.MinMembers > 0 {
		v.Set("minMembers", strconv.Itoa(q.MinMembers))
	}
	if q.MaxMembers > 0 {
		v.Set("maxMembers", strconv.Itoa(q.MaxMembers))
	}
	if q.LocationID > 0 {
		v.Set("locationId", strconv.Itoa(q.LocationID))
	}
	v.Set("limit", strconv.Itoa(q.Limit))
	switch {
	case after != "":
		v.Set("after", after)
	case before != "":
		v.Set("before", before)
	case q.After != "":
		v.Set("after", q.After)
	case q.Before != "":
		v.Set("before", q.Before)
	}
	return v
}
