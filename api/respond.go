package api

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Headers of answers.
const (
	headerCached = "x-cached"
)

// sendJSON encodes v and sends it as a 200 answer with its ETag.
func sendJSON(c *fiber.Ctx, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	return sendAnswer(c, newCachedAnswer(body), false)
}

// sendAnswer writes a rendered answer: its headers, ETag, x-cached when it
// came from the cache, and the gzip form for clients that accept it. A
// matching If-None-Match is answered 304 without a body.
func sendAnswer(c *fiber.Ctx, answer *cachedAnswer, fromCache bool) error {
	for _, h := range answer.headers {
		c.Set(h[0], h[1])
	}
	if fromCache {
		c.Set(headerCached, "true")
	}
	c.Set(fiber.HeaderETag, answer.etag)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Vary(fiber.HeaderAcceptEncoding)
	if etagMatches(c.Get(fiber.HeaderIfNoneMatch), answer.etag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	if acceptsGzip(c.Get(fiber.HeaderAcceptEncoding)) {
		if gz := answer.gzipBody(); gz != nil {
			c.Set(fiber.HeaderContentEncoding, "gzip")
			return c.Status(fiber.StatusOK).Send(gz)
		}
	}
	return c.Status(fiber.StatusOK).Send(answer.body)
}

// etagMatches applies If-None-Match's weak comparison: any listed tag, with
// or without W/, equal to ours, or "*".
func etagMatches(ifNoneMatch, etag string) bool {
	if ifNoneMatch == "" {
		return false
	}
	for _, candidate := range strings.Split(ifNoneMatch, ",") {
		candidate = strings.TrimSpace(candidate)
		if candidate == "*" || strings.TrimPrefix(candidate, "W/") == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reads Accept-Encoding for gzip with a non-zero quality.
func acceptsGzip(acceptEncoding string) bool {
	for _, part := range strings.Split(acceptEncoding, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		params = strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return params != "q=0" && params != "q=0.0" && params != "q=0.00" && params != "q=0.000"
	}
	return false
}
