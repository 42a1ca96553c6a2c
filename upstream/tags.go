package upstream

import (
	"net/url"
	"strings"
)

// tagPath is the path segment of a normalized tag: "%23" followed by the
// tag, as the official API wants it.
func tagPath(tag string) string { return "%23" + url.PathEscape(tag) }

// bareTag is an upstream tag without its leading '#'.
func bareTag(tag string) string { return strings.TrimPrefix(tag, "#") }
