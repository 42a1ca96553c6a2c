package api

import (
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// startingHealth is /healthz's answer while the process starts: alive,
// not serving yet.
const startingHealth = `{"status":"starting"}`

// StartingHandler answers the requests that reach the API's port while
// the process is still starting (waiting for its database, say), before
// the app serves: at once, each on a connection it then closes, so that
// none outlives the app taking the port over, with an X-Request-Id (the
// client's plain one, else one of ours) and nosniff as every answer. GET or HEAD /healthz is
// 200 {"status":"starting"} (the process is alive: a liveness check has
// nothing to restart); every other request, /readyz, any method and any
// path included, is the contract's 503 Temporarily unavailable with the
// Retry-After of an unavailable database. supportInfo is the "info" text
// of the error body.
func StartingHandler(supportInfo string) http.Handler {
	unavailable := fixedErrorBody(http.StatusServiceUnavailable, textUnavailable, supportInfo)
	retryAfter := strconv.Itoa(ceilSeconds(models.DatabaseRetryAfter))
	ids := newRequestIDs()
	healthTag := etagOf([]byte(startingHealth))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		header := w.Header()
		if id := r.Header.Get(headerRequestID); plainRequestID([]byte(id)) {
			header.Set(headerRequestID, id)
		} else {
			header.Set(headerRequestID, string(ids.appendUnseenID(nil)))
		}
		header.Set("Content-Type", fiber.MIMEApplicationJSON)
		header.Set("X-Content-Type-Options", "nosniff")
		header.Set("Connection", "close")
		if r.URL.Path == "/healthz" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			header.Set("ETag", healthTag)
			header.Set("Vary", "Accept-Encoding")
			header.Set("Content-Length", strconv.Itoa(len(startingHealth)))
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte(startingHealth))
			return
		}
		header.Set("Retry-After", retryAfter)
		header.Set("Content-Length", strconv.Itoa(len(unavailable)))
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write(unavailable)
	})
}
