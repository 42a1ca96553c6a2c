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

// vocabularyKey folds an upstream enum value for comparison, so that
// "inviteOnly", "INVITE_ONLY" and "inviteonly" read the same.
func vocabularyKey(value string) string {
	return strings.ToLower(strings.ReplaceAll(value, "_", ""))
}
