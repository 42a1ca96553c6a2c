package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// The legacy query parameters that shape a 200 answer (see docs/api.md,
// "Legacy query parameters"): keys and exclude on every route, max and
// page on the routes that answer a list (s.paged). They are applied to
// the rendered answer as it is about to be sent, cached or not, so the
// cache keeps one entry per answer whatever its shapes; the shaped body
// gets its own ETag. A request without them costs one look at the
// number of query arguments.
const (
	paramKeys    = "keys"
	paramExclude = "exclude"
	paramMax     = "max"
	paramPage    = "page"
)

// Bounds of max and page.
const (
	pageSizeMin = 1
	pageSizeMax = 100
	pageDef     = 0
	pageMax     = 1_000_000
)

// answerShape is what the route and the query ask of a request's answer
// besides keys and exclude, kept in the request's state.
type answerShape struct {
	// pageSize and page are the window of a paged route's list; pageSize
	// 0 when neither max nor page was given.
	pageSize, page int
	// bySlot: the answer is an object keyed by slot (history), whose
	// values are the elements keys and exclude apply to.
	bySlot bool
	// linked: the route announces its further pages in a Link header
	// (search), so a window that is not the last (or first) of the
	// answer's list gets a next (or prev) link to its neighbour.
	linked bool
}

// paged reads max and page before handler runs, so that a bad value is
// refused before any work: the handler's list answer is then cut to page
// page of max elements.
func (s *Server) paged(handler fiber.Handler) fiber.Handler { return pagedAs(handler, false) }

// pagedLinked is paged for answers whose further pages a Link header
// announces (search): the windows max and page cut from them are linked
// too.
func (s *Server) pagedLinked(handler fiber.Handler) fiber.Handler { return pagedAs(handler, true) }

// pagedAs is paged, with linked telling whether the windows are linked.
// It touches the request's state only when max or page is given, so a
// request without them pays nothing for it.
func pagedAs(handler fiber.Handler, linked bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if c.Context().QueryArgs().Len() == 0 {
			return handler(c)
		}
		size, sizeGiven, err := queryInt(c, paramMax, pageSizeMax, pageSizeMin, pageSizeMax)
		if err != nil {
			return err
		}
		page, pageGiven, err := queryInt(c, paramPage, pageDef, 0, pageMax)
		if err != nil {
			return err
		}
		if st := stateOf(c); st != nil && (sizeGiven || pageGiven) {
			st.shape.pageSize, st.shape.page, st.shape.linked = size, page, linked
		}
		return handler(c)
	}
}

// keyedBySlot marks handler's answers as objects keyed by slot: keys and
// exclude apply to each slot's snapshot.
func (s *Server) keyedBySlot(handler fiber.Handler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if st := stateOf(c); st != nil {
			st.shape.bySlot = true
		}
		return handler(c)
	}
}

// shapedAnswer is answer as the request's max, page, keys and exclude
// shape it: answer itself when they ask nothing of it, else a new answer
// of the shaped body (never cached), with answer's headers.
func (s *Server) shapedAnswer(c *fiber.Ctx, answer *cachedAnswer) (*cachedAnswer, error) {
	args := c.Context().QueryArgs()
	keep, drop := parseFieldSet(fieldList(args, paramKeys)), parseFieldSet(fieldList(args, paramExclude))
	var shape answerShape
	if st := stateOf(c); st != nil {
		shape = st.shape
	}
	if keep == nil && drop == nil && shape.pageSize == 0 {
		return answer, nil
	}
	plain, err := s.inflaters.plainBody(answer)
	if err != nil {
		return nil, err
	}
	body, elements, err := shapeBody(plain, shape, keep, drop)
	if err != nil {
		return nil, fmt.Errorf("shape answer: %w", err)
	}
	headers := shapedLinks(answer.headers, args)
	if shape.linked && elements >= 0 {
		headers = windowLinks(headers, c.Route().Path, args, shape, elements)
	}
	shaped := &cachedAnswer{plain: body, length: len(body), etag: etagOf(body), headers: headers}
	shaped.weakETag = weakETagOf(shaped.etag)
	if len(body) >= minGzipSize && acceptsGzip(c) {
		shaped.gzipped = compress(body)
	}
	return shaped, nil
}

// shapedLinks are an answer's headers with each page a Link header points
// to (a search's next and previous pages) shaped as the request asks, by
// its max, keys and exclude; page is left out, as the page a cursor points
// to starts at its first window.
func shapedLinks(headers [][2]string, args *fasthttp.Args) [][2]string {
	var shaping []byte
	for _, name := range []string{paramMax, paramKeys, paramExclude} {
		value := args.Peek(name)
		if name != paramMax {
			value = fieldList(args, name)
		}
		if value != nil {
			shaping = append(shaping, '&')
			shaping = append(shaping, name...)
			shaping = append(shaping, '=')
			shaping = append(shaping, url.QueryEscape(string(value))...)
		}
	}
	if shaping == nil {
		return headers
	}
	shaped := slices.Clone(headers)
	for i, h := range shaped {
		if h[0] == fiber.HeaderLink {
			// The targets are ours: </path?query>; with a query escaped.
			shaped[i][1] = strings.ReplaceAll(h[1], ">;", string(shaping)+">;")
		}
	}
	return shaped
}

// windowLinks are the Link headers of a window that max and page cut
// from a linked answer's list of elements elements: the next window of the same answer when
// there is one, else the page the answer's own next link points to; the
// previous window when there is one, else the last window of the page the
// answer's own prev link points to (a page of the answer's limit). Without
// them, a client following rel="next" from the first of several windows
// would skip all the others.
func windowLinks(headers [][2]string, path string, args *fasthttp.Args, shape answerShape, elements int) [][2]string {
	links := map[string]string{}
	var order []string
	var kept [][2]string
	for _, h := range headers {
		if h[0] != fiber.HeaderLink {
			kept = append(kept, h)
			continue
		}
		for _, link := range strings.Split(h[1], ", ") {
			target, rel, ok := strings.Cut(link, ">; rel=")
			if !ok {
				continue
			}
			rel = strings.Trim(rel, `"`)
			links[rel] = strings.TrimPrefix(target, "<")
			order = append(order, rel)
		}
	}
	windowOf := func(page int) string {
		var self fasthttp.Args
		args.CopyTo(&self)
		self.Set(paramPage, strconv.Itoa(page))
		return path + "?" + string(self.QueryString())
	}
	if (shape.page+1)*shape.pageSize < elements {
		links["next"] = windowOf(shape.page + 1)
	}
	switch {
	case shape.page > 0 && elements > 0:
		links["prev"] = windowOf(min(shape.page-1, (elements-1)/shape.pageSize))
	case links["prev"] != "":
		if last := lastWindow(links["prev"], shape.pageSize); last > 0 {
			links["prev"] += "&" + paramPage + "=" + strconv.Itoa(last)
		}
	}
	var rendered []string
	for _, rel := range []string{"next", "prev"} {
		if links[rel] != "" {
			rendered = append(rendered, "<"+links[rel]+`>; rel="`+rel+`"`)
		}
	}
	for _, rel := range order {
		if rel != "next" && rel != "prev" {
			rendered = append(rendered, "<"+links[rel]+`>; rel="`+rel+`"`)
		}
	}
	if len(rendered) > 0 {
		kept = append(kept, [2]string{fiber.HeaderLink, strings.Join(rendered, ", ")})
	}
	return kept
}

// lastWindow is the last window of size elements of the full page target
// (one of our Link targets, which names its limit) points to.
func lastWindow(target string, size int) int {
	_, query, _ := strings.Cut(target, "?")
	values, err := url.ParseQuery(query)
	if err != nil {
		return 0
	}
	limit, err := strconv.Atoi(values.Get("limit"))
	if err != nil || limit < 1 {
		return 0
	}
	return (limit - 1) / size
}

// shapeBody cuts a list body to its page, then keeps or drops fields of
// its elements: the values of an object keyed by slot, the elements of an
// array, or the fields of an object answer. elements is the length of the
// list the page was cut from; -1 when no page was cut (no max or page, or
// not a list).
func shapeBody(body []byte, shape answerShape, keep, drop fieldSet) (shaped []byte, elements int, err error) {
	elements = -1
	if shape.pageSize > 0 {
		if body, elements, err = pageOf(body, shape.pageSize, shape.page); err != nil {
			return nil, -1, err
		}
	}
	if keep == nil && drop == nil {
		return body, elements, nil
	}
	if shape.bySlot {
		shaped, err = mapObject(body, func(_ string, value []byte) ([]byte, bool, error) {
			shaped, err := shapeFields(value, keep, drop)
			return shaped, true, err
		})
	} else {
		shaped, err = shapeFields(body, keep, drop)
	}
	return shaped, elements, err
}

// pageOf is page page of size elements of a JSON array (an empty array
// beyond its end), with the array's length; any other value is returned
// as it is, with -1.
func pageOf(body []byte, size, page int) (cut []byte, elements int, err error) {
	if !startsWith(body, '[') {
		return body, -1, nil
	}
	var all []json.RawMessage
	if err := json.Unmarshal(body, &all); err != nil {
		return nil, -1, err
	}
	from := min(page*size, len(all))
	return appendArray(make([]byte, 0, len(body)), all[from:min(from+size, len(all))]), len(all), nil
}

// fieldSet is a set of field paths as a tree: a name maps to nil when
// the whole field is named, or to the set of its named nested fields.
type fieldSet map[string]fieldSet

// fieldList is the comma-separated field names of the query's parameter
// name: its values joined by commas when it is given more than once
// (keys=a&keys=b is keys=a,b), nil when it is not given.
func fieldList(args *fasthttp.Args, name string) []byte {
	if args.Peek(name) == nil {
		return nil // no allocation on the plain path
	}
	joined, given := []byte{}, false
	for key, value := range args.All() {
		if string(key) != name {
			continue
		}
		if given {
			joined = append(joined, ',')
		}
		joined, given = append(joined, value...), true
	}
	return joined
}

// parseFieldSet reads a comma-separated list of dotted field paths; nil
// when the list names nothing (absent or empty). A path inside one
// already named whole adds nothing; naming a field whole replaces the
// paths inside it.
func parseFieldSet(raw []byte) fieldSet {
	if len(raw) == 0 {
		return nil // no allocation on the plain path
	}
	var set fieldSet
	for _, path := range strings.Split(string(raw), ",") {
		names := strings.Split(strings.TrimSpace(path), ".")
		if hasEmptyName(names) {
			continue
		}
		if set == nil {
			set = fieldSet{}
		}
		node := set
		for i, name := range names {
			sub, named := node[name]
			if i == len(names)-1 {
				node[name] = nil
				break
			}
			if named && sub == nil {
				break // named whole already
			}
			if sub == nil {
				sub = fieldSet{}
				node[name] = sub
			}
			node = sub
		}
	}
	return set
}

// hasEmptyName tells whether a path has an empty name ("", "a..b",
// "a."): such a path names nothing.
func hasEmptyName(names []string) bool {
	for _, name := range names {
		if name == "" {
			return true
		}
	}
	return false
}

// shapeFields keeps the fields keep names (all when nil) and drops those
// drop names whole, going into the fields they name nested paths of: of
// an object, its fields; of an array, each element's; any other value is
// returned as it is. Fields keep their order.
func shapeFields(value []byte, keep, drop fieldSet) ([]byte, error) {
	switch {
	case keep == nil && drop == nil:
		return value, nil
	case startsWith(value, '['):
		var elements []json.RawMessage
		if err := json.Unmarshal(value, &elements); err != nil {
			return nil, err
		}
		for i, element := range elements {
			shaped, err := shapeFields(element, keep, drop)
			if err != nil {
				return nil, err
			}
			elements[i] = shaped
		}
		return appendArray(make([]byte, 0, len(value)), elements), nil
	case startsWith(value, '{'):
		return mapObject(value, func(name string, field []byte) ([]byte, bool, error) {
			keepInside, kept := keep[name]
			dropInside, dropped := drop[name]
			switch {
			case keep != nil && !kept, dropped && dropInside == nil:
				return nil, false, nil
			}
			shaped, err := shapeFields(field, keepInside, dropInside)
			return shaped, true, err
		})
	}
	return value, nil
}

// mapObject rewrites the fields of a JSON object in order: fn returns a
// field's new value and whether to keep the field.
func mapObject(object []byte, fn func(name string, value []byte) ([]byte, bool, error)) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(object))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	out := make([]byte, 0, len(object))
	out = append(out, '{')
	for dec.More() {
		token, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := token.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		shaped, kept, err := fn(name, value)
		if err != nil {
			return nil, err
		}
		if !kept {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		quoted, _ := json.Marshal(name)
		out = append(append(append(out, quoted...), ':'), shaped...)
	}
	return append(out, '}'), nil
}

// appendArray appends the JSON array of elements to dst.
func appendArray(dst []byte, elements []json.RawMessage) []byte {
	dst = append(dst, '[')
	for i, element := range elements {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, element...)
	}
	return append(dst, ']')
}

// startsWith tells whether a JSON value begins with the byte b.
func startsWith(value []byte, b byte) bool {
	value = bytes.TrimLeft(value, " \t\r\n")
	return len(value) > 0 && value[0] == b
}
