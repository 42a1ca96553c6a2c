package api

import (
	"slices"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/crownsdev/crowns/keys"
)

// methodOther is the name under which a request reaches the routes when
// its method is one Fiber does not know (FOO, PROPFIND, get...): Fiber
// would answer those itself, a plain-text 400, before any middleware.
// Renamed, they meet the middleware that answers every method a route
// does not allow with the contract's 405.
const methodOther = "OTHER"

// localMethod is the Locals key of the method name a request came with
// when it was renamed methodOther, for the access log.
const localMethod = "crowns.method"

// maxLoggedMethodLength bounds the method name kept for the access log.
const maxLoggedMethodLength = 32

// requestMethods are the method names Fiber routes: the standard ones and
// methodOther.
func requestMethods() []string {
	return append(slices.Clone(fiber.DefaultMethods), methodOther)
}

// knownMethodsOnly wraps next, Fiber's request handler: a request whose
// method is not among known is renamed methodOther (its own name kept
// under localMethod), so that whatever its method name a request is
// answered by the API. Known names pass untouched, at the cost of a few
// byte comparisons.
func knownMethodsOnly(next fasthttp.RequestHandler, known []string) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		method := ctx.Method()
		for _, name := range known {
			if string(method) == name {
				next(ctx)
				return
			}
		}
		ctx.SetUserValue(localMethod, loggedMethod(string(method)))
		ctx.Request.Header.SetMethod(methodOther)
		next(ctx)
	}
}

// methodOf is the method name the request came with, as logged (see
// loggedMethod). A request the HTTP server refused before the app saw it
// was not renamed: its method is read as it came.
func methodOf(c *fiber.Ctx) string {
	if original, ok := c.Locals(localMethod).(string); ok {
		return original
	}
	return loggedMethod(c.Method())
}

// loggedMethod is a method name as the access log keeps it: anything in
// it that starts like a key redacted (keys.Redact: a key sent as the
// method), cut at maxLoggedMethodLength. A standard name is itself.
func loggedMethod(method string) string {
	method = keys.Redact(method)
	return method[:min(len(method), maxLoggedMethodLength)]
}

// allowedMethods is the Allow header of a request's route: POST on the
// leak reports, GET and HEAD everywhere else.
func allowedMethods(c *fiber.Ctx) string {
	if isLeakReportPath(c.Path()) {
		return fiber.MethodPost
	}
	return "GET, HEAD"
}

// methodAllowed tells whether the request's route takes its method (see
// allowedMethods).
func methodAllowed(c *fiber.Ctx) bool {
	if isLeakReportPath(c.Path()) {
		return c.Method() == fiber.MethodPost
	}
	return c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead
}
