package sandbox

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/crownsdev/crowns/upstream/official"
)

// Handler serves the world under /v1 as the official API does: any Bearer
// token is accepted, a request without one gets the official 403 body,
// unknown paths and tags get 404 and bad parameters 400, all with the
// official {"reason","message"} body.
func (w *World) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/clans", w.serveClanSearch)
	mux.HandleFunc("GET /v1/clans/{tag}", w.serveClan)
	mux.HandleFunc("GET /v1/clans/{tag}/members", w.serveClanMembers)
	mux.HandleFunc("GET /v1/players/{tag}", w.servePlayer)
	mux.HandleFunc("GET /v1/players/{tag}/battlelog", w.serveBattleLog)
	mux.HandleFunc("GET /v1/tournaments", w.serveTournamentSearch)
	mux.HandleFunc("GET /v1/tournaments/{tag}", w.serveTournament)
	mux.HandleFunc("GET /v1/cards", w.serveCards)
	mux.HandleFunc("GET /v1/locations", w.serveLocations)
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		writeError(rw, http.StatusNotFound, official.ReasonNotFound, "Unknown path: "+r.URL.Path)
	})
	return guard(mux)
}

// guard answers what the official API refuses before routing: requests
// without a Bearer token and methods other than GET.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
			writeError(rw, http.StatusForbidden, official.ReasonAccessDenied, "Invalid authorization")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(rw, http.StatusMethodNotAllowed, official.ReasonBadRequest, "Only GET is supported")
			return
		}
		next.ServeHTTP(rw, r)
	})
}

// writeJSON answers v with status.
func writeJSON(rw http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		writeError(rw, http.StatusInternalServerError, official.ReasonUnknown, "Unknown error")
		return
	}
	rw.Header().Set("Content-Type", "application/json; charset=utf-8")
	rw.WriteHeader(status)
	_, _ = rw.Write(body)
}

// writeError answers the official error body.
func writeError(rw http.ResponseWriter, status int, reason, message string) {
	body, _ := json.Marshal(official.ClientError{Reason: reason, Message: message})
	rw.Header().Set("Content-Type", "application/json; charset=utf-8")
	rw.WriteHeader(status)
	_, _ = rw.Write(body)
}

func badRequest(rw http.ResponseWriter, message string) {
	writeError(rw, http.StatusBadRequest, official.ReasonBadRequest, message)
}

func notFound(rw http.ResponseWriter, r *http.Request) {
	writeError(rw, http.StatusNotFound, official.ReasonNotFound, "Not found with tag "+r.PathValue("tag"))
}
