package api

import (
	"bytes"
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"github.com/crownsdev/crowns/models"
)

// pathTag reads and normalizes the tag in a path parameter. The result is
// a fresh string, safe to keep after the handler returns.
func pathTag(c *fiber.Ctx, param string) (string, error) {
	tag, err := transientPathTag(c, param)
	if err != nil {
		return "", err
	}
	return strings.Clone(tag), nil
}

// transientPathTag is pathTag without the copy: the tag may share the
// request's memory, so it is valid during the request only. A cache hit
// needs no more; whatever keeps the tag must clone it.
func transientPathTag(c *fiber.Ctx, param string) (string, error) {
	return models.NormalizeURLTag(decodedPathSegment(c.Params(param)))
}

// decodedPathSegment is a path parameter with its percent-escapes decoded:
// Fiber gives path parameters as sent, and /player/%4CQ…/battles names the
// same tag as /player/LQ…/battles. A parameter that is not valid
// percent-encoding is returned as sent, for the tag rules to refuse.
// Without a "%" (nearly every request) nothing is copied.
func decodedPathSegment(raw string) string {
	if strings.IndexByte(raw, '%') < 0 {
		return raw
	}
	decoded, err := url.PathUnescape(raw)
	if err != nil {
		return raw
	}
	return decoded
}

// transientQueryValue returns a query parameter and whether it was given.
// Like transientPathTag's tag, the value shares the request's memory: it
// is valid during the request only, and whatever keeps it must clone it.
func transientQueryValue(c *fiber.Ctx, name string) (string, bool) {
	raw := c.Context().QueryArgs().Peek(name)
	if raw == nil {
		return "", false
	}
	return utils.UnsafeString(raw), true
}

// queryInt reads an optional whole-number query parameter within
// [min, max]; absent means def. A whole number too large for an int is
// out of range like any other beyond max (or below min), not "not a
// whole number".
func queryInt(c *fiber.Ctx, name string, def, min, max int) (value int, given bool, err error) {
	raw := c.Context().QueryArgs().Peek(name)
	if raw == nil {
		return def, false, nil
	}
	// The conversion of a short value does not escape: no allocation.
	n, convErr := strconv.Atoi(string(bytes.TrimSpace(raw)))
	if errors.Is(convErr, strconv.ErrRange) {
		return 0, true, models.InvalidParam(name, rangeText(min, max))
	}
	if convErr != nil {
		return 0, true, models.InvalidParam(name, "not a whole number")
	}
	if n < min || n > max {
		return 0, true, models.InvalidParam(name, rangeText(min, max))
	}
	return n, true, nil
}

func rangeText(min, max int) string {
	return "must be between " + strconv.Itoa(min) + " and " + strconv.Itoa(max)
}
