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
// A parameter given more than once with different values is refused
// (errRepeatedParam): no value of it would be the one the caller meant.
func transientQueryValue(c *fiber.Ctx, name string) (string, bool, error) {
	raw, other := queryValues(c, name)
	if raw == nil {
		return "", false, nil
	}
	if other != nil {
		return "", true, errRepeatedParam(name)
	}
	return utils.UnsafeString(raw), true, nil
}

// queryValues returns the first value of a query parameter (nil when it
// is not given) and, when it is given more than once, the first later
// value that differs from it (nil when every repetition repeats it).
// Both share the request's memory.
func queryValues(c *fiber.Ctx, name string) (first, other []byte) {
	args := c.Context().QueryArgs()
	first = args.Peek(name)
	if first == nil {
		return nil, nil // no scan on the plain path
	}
	seen := false
	for key, value := range args.All() {
		if string(key) != name {
			continue
		}
		if seen && !bytes.Equal(value, first) {
			return first, value
		}
		seen = true
	}
	return first, nil
}

// errRepeatedParam answers a query parameter given more than once with
// different values.
func errRepeatedParam(name string) error {
	return models.InvalidParam(name, "given more than once with different values")
}

// queryInt reads an optional whole-number query parameter within
// [min, max]; absent means def. A whole number too large for an int is
// out of range like any other beyond max (or below min), not "not a
// whole number". Each value of a parameter given more than once must be
// valid, and they must agree.
func queryInt(c *fiber.Ctx, name string, def, min, max int) (value int, given bool, err error) {
	raw, other := queryValues(c, name)
	if raw == nil {
		return def, false, nil
	}
	if value, err = parseQueryInt(name, raw, min, max); err != nil {
		return 0, true, err
	}
	if other != nil {
		if _, err = parseQueryInt(name, other, min, max); err != nil {
			return 0, true, err
		}
		return 0, true, errRepeatedParam(name)
	}
	return value, true, nil
}

// parseQueryInt reads one value of queryInt's parameter name.
func parseQueryInt(name string, raw []byte, min, max int) (int, error) {
	// The conversion of a short value does not escape: no allocation.
	n, convErr := strconv.Atoi(string(bytes.TrimSpace(raw)))
	if errors.Is(convErr, strconv.ErrRange) {
		return 0, models.InvalidParam(name, rangeText(min, max))
	}
	if convErr != nil {
		return 0, models.InvalidParam(name, "not a whole number")
	}
	if n < min || n > max {
		return 0, models.InvalidParam(name, rangeText(min, max))
	}
	return n, nil
}

func rangeText(min, max int) string {
	return "must be between " + strconv.Itoa(min) + " and " + strconv.Itoa(max)
}
