package api

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// Answers of the documentation routes.
const (
	// docsCacheControl lets browsers keep the documents and ask again with
	// If-None-Match, which answers 304 until the binary changes.
	docsCacheControl = "public, no-cache"
	// docsPolicy is the page's Content-Security-Policy: it loads nothing
	// but this server's script and document. Redoc styles its elements
	// with inline styles and inline SVG images.
	docsPolicy = "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data:; " +
		"style-src 'self' 'unsafe-inline'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	mimeJavaScript = "text/javascript; charset=utf-8"
	mimeText       = "text/plain; charset=utf-8"
)

// documentation holds the rendered answers of /openapi.json, /docs, its
// script and the script's licence notice. The document is converted when
// the server is built; the page and its files (the script a megabyte to
// compress) on their first request.
type documentation struct {
	document *cachedAnswer
	page     func() (docsPage, error)
}

// docsPage is the page, its script and the script's licence notice,
// rendered; the page twice, its links relative to /docs and to /docs/.
type docsPage struct {
	html, htmlInFolder, script, license *cachedAnswer
}

// docsRoot is the place in the page's file of the way from the page to
// the server's root: the page is served as /docs, and as /docs/.
const docsRoot = "{{root}}"

func newDocumentation() (documentation, error) {
	document, err := OpenAPIDocument()
	if err != nil {
		return documentation{}, err
	}
	page := sync.OnceValues(func() (docsPage, error) {
		html, err := documentFiles.ReadFile(docsPageFile)
		if err != nil {
			return docsPage{}, err
		}
		script, err := documentFiles.ReadFile(docsScriptFile)
		if err != nil {
			return docsPage{}, err
		}
		license, err := documentFiles.ReadFile(docsScriptLicenseFile)
		if err != nil {
			return docsPage{}, err
		}
		return docsPage{
			html:         bothForms(bytes.ReplaceAll(html, []byte(docsRoot), nil)),
			htmlInFolder: bothForms(bytes.ReplaceAll(html, []byte(docsRoot), []byte("../"))),
			script:       bothForms(script), license: bothForms(license),
		}, nil
	})
	return documentation{document: bothForms(document), page: page}, nil
}

// docsRoutes registers the document, the page, its script and the
// script's licence notice (which the script's first line names); they
// need no key.
func (s *Server) docsRoutes() {
	s.get("/openapi.json", s.handleOpenAPI)
	s.get("/docs", s.handleDocsPage)
	s.get("/docs/redoc.standalone.js", s.docsFile(func(p docsPage) *cachedAnswer { return p.script }, mimeJavaScript))
	s.get("/docs/redoc.standalone.js.LICENSE.txt", s.docsFile(func(p docsPage) *cachedAnswer { return p.license }, mimeText))
}

// handleOpenAPI answers GET /openapi.json.
func (s *Server) handleOpenAPI(c *fiber.Ctx) error {
	return s.sendDocument(c, s.docs.document, fiber.MIMEApplicationJSON)
}

// handleDocsPage answers GET /docs: the page that renders the document.
// The page names the document and its script relative to itself, so that
// it also works behind a proxy that serves Crowns under a path prefix;
// asked as /docs/, it names them from that folder.
func (s *Server) handleDocsPage(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentSecurityPolicy, docsPolicy)
	inFolder := strings.HasSuffix(c.Path(), "/")
	return s.docsFile(func(p docsPage) *cachedAnswer {
		if inFolder {
			return p.htmlInFolder
		}
		return p.html
	}, fiber.MIMETextHTMLCharsetUTF8)(c)
}

// docsFile is the handler of one of the page's files, which file picks,
// sent as contentType.
func (s *Server) docsFile(file func(docsPage) *cachedAnswer, contentType string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		page, err := s.docs.page()
		if err != nil {
			return fmt.Errorf("documentation page: %w", err)
		}
		return s.sendDocument(c, file(page), contentType)
	}
}

// sendDocument sends a rendered document with its ETag (or 304) as
// contentType.
func (s *Server) sendDocument(c *fiber.Ctx, answer *cachedAnswer, contentType string) error {
	c.Set(fiber.HeaderCacheControl, docsCacheControl)
	if err := s.sendAnswer(c, answer, false, ""); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, contentType)
	return nil
}

// bothForms is an answer of body kept both plain and compressed: the
// documents are few and asked for by browsers and tools of every kind.
func bothForms(body []byte) *cachedAnswer {
	return newCachedAnswer(body).withPlain(body)
}
