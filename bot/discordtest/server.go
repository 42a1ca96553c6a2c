package discordtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// IDs the fake answers with unless a test sets others.
const (
	DefaultBotUserID     = "900000000000000001"
	DefaultApplicationID = "900000000000000001"
)

// Request is one REST request the fake received. Path is relative to the
// API prefix, like "/channels/123/messages".
type Request struct {
	Method string
	Path   string
	Query  url.Values
	Body   []byte
}

// Server is the fake Discord. It is safe for concurrent use.
type Server struct {
	http *httptest.Server
	// t hears of every request whose body Discord would refuse.
	t testing.TB

	mu       sync.Mutex
	requests []Request
	rules    []*Rule
	// arrived is closed and replaced whenever a request is recorded.
	arrived chan struct{}
	members []*discordgo.Member
	// channels are what GET /channels/{id} knows, by id.
	channels map[string]discordgo.Channel
	nextID   int64
	gateway  GatewayScript
	identify []Identify
	// dropped counts the connections the gateway dropped (see
	// GatewayScript.DropConnections).
	dropped int
	// botUser is who GET /users/@me says the bot is.
	botUser discordgo.User
	// acknowledged are the ids of the interactions given their initial
	// response, responded their tokens.
	acknowledged map[string]bool
	responded    map[string]bool
}

// New starts a fake Discord that stops when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		t:            t,
		nextID:       100000000000000000,
		acknowledged: map[string]bool{},
		channels:     map[string]discordgo.Channel{},
		responded:    map[string]bool{},
		botUser:      discordgo.User{ID: DefaultBotUserID, Username: "crowns", Bot: true},
		gateway:      GatewayScript{ApplicationID: DefaultApplicationID},
		arrived:      make(chan struct{}),
	}
	s.http = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.http.Close)
	return s
}

// Client returns an HTTP client for discordgo.Session.Client whose
// transport sends every request to this fake.
func (s *Server) Client() *http.Client {
	target, _ := url.Parse(s.http.URL)
	return &http.Client{Transport: redirect{target: target, next: http.DefaultTransport}}
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// RequestsTo returns the requests whose method and path match pattern, as
// in Fail.
func (s *Server) RequestsTo(method, pattern string) []Request {
	var matched []Request
	for _, r := range s.Requests() {
		if r.Method == method && pathMatches(pattern, r.Path) {
			matched = append(matched, r)
		}
	}
	return matched
}

// Await blocks until at least n requests with method and a path matching
// pattern have arrived, and returns them; after timeout it fails the test.
// It is for code that reaches Discord from its own goroutines.
func (s *Server) Await(t testing.TB, method, pattern string, n int, timeout time.Duration) []Request {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		arrived := s.arrived
		s.mu.Unlock()
		if matched := s.RequestsTo(method, pattern); len(matched) >= n {
			return matched
		}
		select {
		case <-arrived:
		case <-deadline.C:
			t.Fatalf("waited %s for %d %s %s requests; got %d", timeout, n, method, pattern, len(s.RequestsTo(method, pattern)))
			return nil
		}
	}
}

// SetMembers makes the community server's member list exactly these user
// ids (any order; the fake pages through them by ascending id).
func (s *Server) SetMembers(userIDs ...string) {
	members := make([]*discordgo.Member, 0, len(userIDs))
	for _, id := range userIDs {
		members = append(members, &discordgo.Member{User: &discordgo.User{ID: id, Username: "member" + id}})
	}
	slices.SortFunc(members, func(a, b *discordgo.Member) int { return compareSnowflakes(a.User.ID, b.User.ID) })
	s.mu.Lock()
	defer s.mu.Unlock()
	s.members = members
}

// AddChannels makes GET /channels/{id} answer these channels (by their
// ID); any other id answers Discord's 404 Unknown Channel.
func (s *Server) AddChannels(channels ...discordgo.Channel) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range channels {
		s.channels[c.ID] = c
	}
}

// DMChannelID is the id of the direct-message channel the fake opens with
// userID.
func DMChannelID(userID string) string { return "dm" + userID }

// redirect is the transport of Client.
type redirect struct {
	target *url.URL
	next   http.RoundTripper
}

// RoundTrip sends req to the fake server, keeping its path and query.
func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	out.URL.Scheme = r.target.Scheme
	out.URL.Host = r.target.Host
	out.Host = r.target.Host
	return r.next.RoundTrip(out)
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == "/gateway-socket/" || req.URL.Path == "/gateway-socket" {
		s.serveGateway(w, req)
		return
	}
	body, _ := io.ReadAll(req.Body)
	path := strings.TrimPrefix(req.URL.Path, "/api/v"+discordgo.APIVersion)
	recorded := Request{Method: req.Method, Path: path, Query: req.URL.Query(), Body: body}
	s.mu.Lock()
	s.requests = append(s.requests, recorded)
	rule, failing := s.takeFailure(req.Method, path)
	close(s.arrived)
	s.arrived = make(chan struct{})
	s.mu.Unlock()
	if failing {
		if rule.Taken {
			s.route(httptest.NewRecorder(), recorded)
		}
		rule.write(w)
		return
	}
	s.route(w, recorded)
}

// route answers a request the way Discord would when all goes well. A
// request Discord would refuse (see Check) is answered with Discord's 400
// and fails the test: the bot must never send one.
func (s *Server) route(w http.ResponseWriter, r Request) {
	if operation, problems := Check(r); len(problems) > 0 {
		s.t.Errorf("Discord would refuse %s (%s %s): %s\nbody: %s", operation, r.Method, r.Path, strings.Join(problems, "; "), r.Body)
		writeJSON(w, http.StatusBadRequest, invalidFormBody{Message: "Invalid Form Body", Code: codeInvalidFormBody, Errors: problems})
		return
	}
	switch {
	case r.Method == http.MethodGet && r.Path == "/gateway":
		writeJSON(w, http.StatusOK, map[string]string{"url": "ws" + strings.TrimPrefix(s.http.URL, "http") + "/gateway-socket"})
	case r.Method == http.MethodGet && r.Path == "/users/@me":
		s.mu.Lock()
		user := s.botUser
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, user)
	case r.Method == http.MethodPost && r.Path == "/users/@me/channels":
		var data struct {
			RecipientID string `json:"recipient_id"`
		}
		_ = json.Unmarshal(r.Body, &data)
		writeJSON(w, http.StatusOK, discordgo.Channel{ID: DMChannelID(data.RecipientID), Type: discordgo.ChannelTypeDM})
	case r.Method == http.MethodGet && pathMatches("/channels/*", r.Path):
		s.mu.Lock()
		channel, known := s.channels[strings.Split(r.Path, "/")[2]]
		s.mu.Unlock()
		if !known {
			writeJSON(w, http.StatusNotFound, apiError{Message: "Unknown Channel", Code: 10003})
			return
		}
		writeJSON(w, http.StatusOK, channel)
	case r.Method == http.MethodPost && pathMatches("/channels/*/messages", r.Path):
		var sent discordgo.MessageSend
		_ = json.Unmarshal(r.Body, &sent)
		writeJSON(w, http.StatusOK, discordgo.Message{ID: s.newID(), ChannelID: strings.Split(r.Path, "/")[2], Content: sent.Content, Embeds: sent.Embeds})
	case r.Method == http.MethodDelete && pathMatches("/channels/*/messages/*", r.Path):
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPost && pathMatches("/interactions/*/*/callback", r.Path):
		parts := strings.Split(r.Path, "/")
		if !s.acknowledge(parts[2], parts[3]) {
			writeJSON(w, http.StatusBadRequest, apiError{Message: "Interaction has already been acknowledged.", Code: 40060})
			return
		}
		w.WriteHeader(http.StatusNoContent)
	case r.Method == http.MethodPatch && pathMatches("/webhooks/*/*/messages/@original", r.Path) && !s.hasResponse(strings.Split(r.Path, "/")[3]):
		// Discord has no original response to edit before the initial
		// response (a deferral) was taken.
		s.t.Errorf("%s %s edits the original response of an interaction never responded to", r.Method, r.Path)
		writeJSON(w, http.StatusNotFound, apiError{Message: "Unknown Message", Code: 10008})
	case r.Method == http.MethodPatch && pathMatches("/webhooks/*/*/messages/*", r.Path):
		var edit discordgo.WebhookEdit
		_ = json.Unmarshal(r.Body, &edit)
		message := discordgo.Message{ID: s.newID()}
		if edit.Content != nil {
			message.Content = *edit.Content
		}
		writeJSON(w, http.StatusOK, message)
	case r.Method == http.MethodPut && pathMatches("/applications/*/guilds/*/commands", r.Path):
		var commands []*discordgo.ApplicationCommand
		_ = json.Unmarshal(r.Body, &commands)
		for _, c := range commands {
			c.ID = s.newID()
		}
		writeJSON(w, http.StatusOK, commands)
	case r.Method == http.MethodGet && pathMatches("/guilds/*/members", r.Path):
		writeJSON(w, http.StatusOK, s.membersPage(r.Query))
	default:
		writeJSON(w, http.StatusNotFound, apiError{Message: "404: Not Found", Code: 0})
	}
}

// membersPage answers GET /guilds/{id}/members: up to limit (default 1,
// at most 1000) members whose id is greater than after.
func (s *Server) membersPage(query url.Values) []*discordgo.Member {
	limit, err := strconv.Atoi(query.Get("limit"))
	if err != nil || limit < 1 {
		limit = 1
	}
	limit = min(limit, 1000)
	after := query.Get("after")
	if after == "" {
		after = "0"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	page := []*discordgo.Member{}
	for _, m := range s.members {
		if compareSnowflakes(m.User.ID, after) > 0 {
			page = append(page, m)
			if len(page) == limit {
				break
			}
		}
	}
	return page
}

// acknowledge records the initial response to an interaction, by its id
// and token; false when it had one already.
func (s *Server) acknowledge(interactionID, token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.acknowledged[interactionID] {
		return false
	}
	s.acknowledged[interactionID] = true
	s.responded[token] = true
	return true
}

// hasResponse reports whether the interaction of token had its initial
// response.
func (s *Server) hasResponse(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.responded[token]
}

func (s *Server) newID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return strconv.FormatInt(s.nextID, 10)
}

// compareSnowflakes orders Discord ids numerically.
func compareSnowflakes(a, b string) int {
	x, _ := strconv.ParseUint(a, 10, 64)
	y, _ := strconv.ParseUint(b, 10, 64)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// pathMatches reports whether path matches pattern segment by segment; a
// "*" segment matches any one segment.
func pathMatches(pattern, path string) bool {
	want := strings.Split(strings.Trim(pattern, "/"), "/")
	got := strings.Split(strings.Trim(path, "/"), "/")
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if want[i] != "*" && want[i] != got[i] {
			return false
		}
	}
	return true
}

// codeInvalidFormBody is Discord's JSON error code of a request whose
// body it refuses.
const codeInvalidFormBody = 50035

// invalidFormBody is Discord's answer to a body it refuses, with what it
// found wrong.
type invalidFormBody struct {
	Message string   `json:"message"`
	Code    int      `json:"code"`
	Errors  []string `json:"errors"`
}

// apiError is Discord's JSON error body.
type apiError struct {
	Message string `json:"message"`
	Code    int    `json:"code"`
}

func writeJSON(w http.ResponseWriter, status int, value any) {
	body, err := json.Marshal(value)
	if err != nil {
		http.Error(w, fmt.Sprintf("encode: %v", err), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
