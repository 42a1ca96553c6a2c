package api

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// pathTag reads and normalizes the tag in a path parameter. The result is
// a fresh string, safe to keep after the handler returns.
func pathTag(c *fiber.Ctx, param string) (string, error) {
	tag, err := models.NormalizeTag(c.Params(param))
	if err != nil {
		return "", err
	}
	return strings.Clone(tag), nil
}

// queryValue returns a query parameter, copied, and whether it was given.
func queryValue(c *fiber.Ctx, name string) (string, bool) {
	raw := c.Context().QueryArgs().Peek(name)
	if raw == nil {
		return "", false
	}
	return string(raw), true
}

// queryInt reads an optional whole-number query parameter within
// [min, max]; absent means def.
func queryInt(c *fiber.Ctx, name string, def, min, max int) (value int, given bool, err error) {
	raw, ok := queryValue(c, name)
	if !ok {
		return def, false, nil
	}
	n, convErr := strconv.Atoi(strings.TrimSpace(raw))
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
