package models_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/crownsdev/crowns/models"
)

// FuzzNormalizeTag checks the tag rules on any input, as typed by a
// person (NormalizeTag) or read from a URL's path (NormalizeURLTag): an
// accepted tag is in the stored form and normalizes to itself (the rules
// are idempotent), and a refused one gets one of the contract's three
// messages as a ValidationError.
func FuzzNormalizeTag(f *testing.F) {
	for _, seed := range []string{
		"2PQ8Y0L9C", "#2pq8yol9c", "%232PQ8Y0L9C", " #2CCCP ", "o2o", "#",
		"22", "222222222222222", "ABC", "2CC CP", "2CC,P", "#%23PY", "ſCC", "\x00CC", "2CCCP\xff",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, rule := range []struct {
			name      string
			normalize func(string) (string, error)
		}{{"NormalizeTag", models.NormalizeTag}, {"NormalizeURLTag", models.NormalizeURLTag}} {
			tag, err := rule.normalize(raw)
			if err != nil {
				checkTagRefusal(t, rule.name, raw, err)
				continue
			}
			if len(tag) < models.MinTagLength || len(tag) > models.MaxTagLength || strings.Trim(tag, models.TagAlphabet) != "" {
				t.Fatalf("%s(%q) = %q: not a stored tag", rule.name, raw, tag)
			}
			if again, err := rule.normalize(tag); again != tag || err != nil {
				t.Fatalf("%s(%q) = %q, but %s(%q) = %q, %v", rule.name, raw, tag, rule.name, tag, again, err)
			}
		}
	})
}

// checkTagRefusal fails t unless err is a ValidationError worded as the
// contract words refused tags.
func checkTagRefusal(t *testing.T, rule, raw string, err error) {
	t.Helper()
	var validation *models.ValidationError
	if !errors.As(err, &validation) {
		t.Fatalf("%s(%q) = %v: not a ValidationError", rule, raw, err)
	}
	msg := validation.Message
	switch {
	case msg == "tag too short", msg == "tag too long":
	case strings.HasPrefix(msg, "illegal characters in tag '") && strings.HasSuffix(msg, "' (allowed: "+models.TagAlphabet+")"):
	default:
		t.Fatalf("%s(%q) = %q: not a message of the contract", rule, raw, msg)
	}
}
