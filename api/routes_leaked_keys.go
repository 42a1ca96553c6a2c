package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// leakReportPath is the route of leaked-key reports: the only one that
// takes POST (and only POST).
const leakReportPath = "/security/leaked-keys"

// Headers of a signed leak report, as GitHub's secret scanning sends them.
const (
	headerLeakKeyID     = "Github-Public-Key-Identifier"
	headerLeakSignature = "Github-Public-Key-Signature"
)

// The verdicts of a report, in GitHub's words.
const (
	labelTruePositive  = "true_positive"
	labelFalsePositive = "false_positive"
)

// LeakRevoker revokes a key a secret scanner found published at url;
// *keys.Service implements it. It reports whether raw is a leaked key:
// live and now revoked, or revoked by an earlier report (false for
// anything else, which changes nothing).
type LeakRevoker interface {
	RevokeLeaked(ctx context.Context, raw, url string) (bool, error)
}

// errLeakReportUnsigned answers a leak report without a valid signature
// of a known key.
var errLeakReportUnsigned = errors.New("leak report: no valid signature")

// leakedToken is one element of a report.
type leakedToken struct {
	Token  string `json:"token"`
	Type   string `json:"type"`
	URL    string `json:"url"`
	Source string `json:"source"`
}

// leakVerdict is one element of the answer.
type leakVerdict struct {
	TokenRaw  string `json:"token_raw"`
	TokenType string `json:"token_type"`
	Label     string `json:"label"`
}

// errLeakReportEncoded answers a leak report sent with a Content-Encoding:
// its body is never inflated (a few compressed bytes can hold gigabytes),
// and the signature is of the body as sent.
var errLeakReportEncoded = fiber.NewError(http.StatusUnsupportedMediaType)

// errLeakReportMalformed answers a signed leak report whose body is not a
// JSON array of reported tokens.
var errLeakReportMalformed = fiber.NewError(http.StatusBadRequest)

// handleLeakReport verifies a report's signature over the raw body (at
// most maxLeakReportBody, which bounds the tokens too; a body
// with a Content-Encoding is refused unread, see errLeakReportEncoded), then
// revokes every live Crowns key it names and says, per token, whether it
// is a leaked key (true_positive: revoked now, or by an earlier report)
// or not (false_positive: not a key, unknown, no longer live otherwise).
// Each key is revoked in a transaction of its own: a report that fails
// part way (the database gone) answers 500, and the same report sent
// again revokes the rest and gets the same answers for the ones before.
func (s *Server) handleLeakReport(c *fiber.Ctx) error {
	if encoding := c.Get(fiber.HeaderContentEncoding); encoding != "" && !strings.EqualFold(encoding, "identity") {
		return errLeakReportEncoded
	}
	// The raw body: fiber's Ctx.Body would inflate it by its
	// Content-Encoding.
	body := c.Request().Body()
	if s.deps.Leaks == nil || !s.cfg.LeakReportKeys.verify(c.Get(headerLeakKeyID), c.Get(headerLeakSignature), body) {
		return errLeakReportUnsigned
	}
	var report []leakedToken
	// A JSON null would decode as an empty report: it is no array.
	if err := json.Unmarshal(body, &report); err != nil || report == nil {
		return errLeakReportMalformed
	}
	verdicts := make([]leakVerdict, 0, len(report))
	for _, leaked := range report {
		revoked, err := s.deps.Leaks.RevokeLeaked(s.databaseCtx(c), strings.TrimSpace(leaked.Token), leakPlace(leaked))
		if err != nil {
			return err
		}
		label := labelFalsePositive
		if revoked {
			label = labelTruePositive
		}
		verdicts = append(verdicts, leakVerdict{TokenRaw: leaked.Token, TokenType: leaked.Type, Label: label})
	}
	// The answer repeats the reported tokens: no cache keeps it.
	c.Response().Header.SetCanonical(s.headers.cacheControl, s.headers.valuePrivate)
	return c.JSON(verdicts)
}

// leakPlace is where a report says its token was found, as the owner's
// message and the log channel show it: the report's url, or, where GitHub
// gives none (its url "may be empty"), the source it names (npm, a gist
// comment...), so that the owner still learns where to look.
func leakPlace(leaked leakedToken) string {
	if url := strings.TrimSpace(leaked.URL); url != "" {
		return url
	}
	if source := strings.TrimSpace(leaked.Source); source != "" {
		return "an unnamed place (source: " + source + ")"
	}
	return "an unnamed place"
}

// maxLeakReportBody bounds the body of a leak report: GitHub may send
// many matches in one report, each about 200 bytes, so 256 KiB holds
// some 1,300; a report over it answers 413 and revokes nothing.
const maxLeakReportBody = 256 << 10

// leakReportBodyLimit is the HTTP server's hook on every request head: a
// POST to the leak-report route may have a body up to maxLeakReportBody
// while the bound on large bodies admits its length, every other request
// keeps the app's maxBody, so that no other request makes the server hold
// more. A report the bound does not admit is held to maxBody too: the
// server refuses it unread, and handleError answers it 503 (see
// refusedForLargeBodies).
func (s *Server) leakReportBodyLimit(header *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if !header.IsPost() || !isLeakReportPath(routedPath(header)) {
		return fasthttp.RequestConfig{}
	}
	if n := header.ContentLength(); n > maxBody && n <= maxLeakReportBody && !s.largeBodies.admit(n) {
		return fasthttp.RequestConfig{}
	}
	return fasthttp.RequestConfig{MaxRequestBodySize: maxLeakReportBody}
}

// refusedForLargeBodies tells whether a request the HTTP server refused
// as too large is a leak report the bound on large bodies did not admit:
// its length is within maxLeakReportBody (a chunked body, of no length
// given, is read as it comes and never waits for the bound).
func refusedForLargeBodies(c *fiber.Ctx) bool {
	header := &c.Request().Header
	n := header.ContentLength()
	return n > maxBody && n <= maxLeakReportBody && header.IsPost() && isLeakReportPath(routedPath(header))
}

// routedPath is the path of a request's target as the router reads it
// (the URI's original path): without query or fragment, and of an
// absolute-form target ("http://host/path", which HTTP/1.1 servers must
// take) as of an origin-form one.
func routedPath(header *fasthttp.RequestHeader) string {
	uri := fasthttp.AcquireURI()
	defer fasthttp.ReleaseURI(uri)
	if err := uri.Parse(header.Host(), header.RequestURI()); err != nil {
		return ""
	}
	return string(uri.PathOriginal())
}

// isLeakReportPath tells whether a request's path is the leak-report
// route's (routing ignores case and a trailing slash).
func isLeakReportPath(path string) bool {
	return strings.EqualFold(strings.TrimSuffix(path, "/"), leakReportPath)
}
