package api

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"
)

// Headers of answers.
const (
	headerCached = "x-cached"
)

// sendJSON encodes v and sends it as a 200 answer with its ETag.
func (s *Server) sendJSON(c *fiber.Ctx, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	return s.sendAnswer(c, newCachedAnswer(body), false, "")
}

// sendAnswer writes a rendered answer: its headers, ETag, x-cached when it
// came from the upstream-backed cache, and the form of the body the client
// accepts. A matching If-None-Match is answered 304 without a body. It is
// the one place 200 answers are written: the legacy parameters that shape
// them (answer_shaping.go) apply here, when the request has any query. key
// names the answer in the response cache ("" when it is not cached): an
// answer kept compressed only that a client without gzip asks for is
// inflated once and kept there with its plain form.
func (s *Server) sendAnswer(c *fiber.Ctx, answer *cachedAnswer, fromCache bool, key string) error {
	if c.Context().QueryArgs().Len() > 0 {
		shaped, err := s.shapedAnswer(c, answer)
		if err != nil {
			return err
		}
		if shaped != answer {
			answer, key = shaped, ""
		}
	}
	header := &c.Response().Header
	for _, h := range answer.headers {
		c.Set(h[0], h[1])
	}
	if fromCache {
		header.SetCanonical(s.headers.cached, s.headers.valueTrue)
	}
	// The form is chosen first: a 304 carries the ETag its 200 would.
	gzipped := answer.gzipped != nil && acceptsGzip(c)
	header.SetCanonical(s.headers.etag, answer.etagHeader(gzipped))
	header.SetContentType(fiber.MIMEApplicationJSON)
	header.SetCanonical(s.headers.vary, s.headers.valueAcceptEncoding)
	if ifNoneMatchHits(c, answer.etag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Status(fiber.StatusOK)
	if gzipped {
		header.SetContentEncoding("gzip")
		return c.Send(answer.gzipped)
	}
	if answer.plain != nil || answer.gzipped == nil {
		return c.Send(answer.plain)
	}
	return s.sendUnpacked(c, answer, key)
}

// sendUnpacked serves an answer kept compressed only to a client that
// does not accept gzip. The first such request of a cached answer
// inflates it and keeps its packed form in the cache (see pack); the next
// ones unpack it into the response's pooled body buffer, or, when the
// cache admits the plain form beside it (see responseCache.wouldKeepPlain),
// keep that too. An answer that is not cached, or whose packed form the
// cache has no room for, is inflated into the response's buffer.
func (s *Server) sendUnpacked(c *fiber.Ctx, answer *cachedAnswer, key string) error {
	response := c.Response()
	switch {
	case answer.packed == nil && !s.cache.wouldKeepPacked(key, answer, s.requestNow(c)):
		response.ResetBody()
		return s.inflaters.inflateInto(response.BodyWriter(), answer)
	case answer.packed == nil:
		plain, err := s.inflaters.plainBody(answer)
		if err != nil {
			return err
		}
		s.cache.keepPacked(key, answer, answer.withPacked(pack(plain)), s.requestNow(c))
		return c.Send(plain)
	case s.cache.wouldKeepPlain(key, answer, s.requestNow(c)):
		plain, err := s.inflaters.plainBody(answer)
		if err != nil {
			return err
		}
		s.cache.replace(key, answer, answer.withPlain(plain), s.requestNow(c))
		return c.Send(plain)
	}
	// Unpacked into the response's own body buffer, which fasthttp takes
	// from its pool and gives back after the response is written.
	plain, err := unpack(response.SwapBody(nil), answer)
	if err != nil {
		return err
	}
	response.SwapBody(plain)
	return nil
}

// ifNoneMatchHits tells whether the request's If-None-Match matches etag,
// in any of its header lines: several lines are one comma-separated list
// (RFC 9110 5.3), not the first line alone.
func ifNoneMatchHits(c *fiber.Ctx, etag string) bool {
	for _, line := range c.Request().Header.PeekAll(fiber.HeaderIfNoneMatch) {
		if etagMatches(utils.UnsafeString(line), etag) {
			return true
		}
	}
	return false
}

// etagMatches applies If-None-Match's weak comparison: any listed tag, with
// or without W/, equal to ours, or "*".
func etagMatches(ifNoneMatch, etag string) bool {
	for rest := ifNoneMatch; rest != ""; {
		var candidate string
		candidate, rest, _ = strings.Cut(rest, ",")
		candidate = strings.TrimSpace(candidate)
		if candidate == "*" || strings.TrimPrefix(candidate, "W/") == etag {
			return true
		}
	}
	return false
}

// acceptsGzip tells whether the request accepts a gzip body, by its
// Accept-Encoding in all its header lines: as with If-None-Match, several
// lines are one comma-separated list (RFC 9110 5.3), not the first line
// alone.
func acceptsGzip(c *fiber.Ctx) bool {
	var verdict gzipVerdict
	for _, line := range c.Request().Header.PeekAll(fiber.HeaderAcceptEncoding) {
		verdict.read(utils.UnsafeString(line))
	}
	return verdict.accepts()
}

// gzipVerdict is what an Accept-Encoding list, read one part after
// another, says of gzip (or its old name x-gzip) and of "*", as RFC 9110
// 12.5.3 reads it: gzip is accepted when named with a quality other than
// 0, or, when not named, when "*" is. A coding named more than once is
// refused when any of its mentions says q=0: the list then contradicts
// itself, and the plain body is the one every client can read.
type gzipVerdict struct {
	gzip, wildcard codingQuality
}

// codingQuality is what a list says of one coding so far.
type codingQuality uint8

// What a list says of a coding.
const (
	codingUnnamed codingQuality = iota
	codingAccepted
	codingRefused
)

// read takes in one Accept-Encoding line.
func (v *gzipVerdict) read(acceptEncoding string) {
	for rest := acceptEncoding; rest != ""; {
		var part string
		part, rest, _ = strings.Cut(rest, ",")
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch coding = strings.TrimSpace(coding); {
		case strings.EqualFold(coding, "gzip"), strings.EqualFold(coding, "x-gzip"):
			v.gzip.mention(params)
		case coding == "*":
			v.wildcard.mention(params)
		}
	}
}

// mention records one mention of the coding, with its parameters.
func (q *codingQuality) mention(params string) {
	switch {
	case zeroQuality(params):
		*q = codingRefused
	case *q == codingUnnamed:
		*q = codingAccepted
	}
}

// accepts tells whether the lines read accept gzip.
func (v gzipVerdict) accepts() bool {
	if v.gzip != codingUnnamed {
		return v.gzip == codingAccepted
	}
	return v.wildcard == codingAccepted
}

// zeroQuality reports whether the parameters of a coding say q=0 (with
// up to three zero decimals, spaces allowed).
func zeroQuality(params string) bool {
	params = strings.TrimSpace(params)
	name, value, ok := strings.Cut(params, "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(name), "q") {
		return false
	}
	value = strings.TrimSpace(value)
	switch value {
	case "0", "0.", "0.0", "0.00", "0.000":
		return true
	}
	return false
}
