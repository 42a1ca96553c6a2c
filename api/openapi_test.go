// The allocation test runs apart, without the race detector, built with
// the allocations tag: without this file, it needs none of its libraries
// compiled a second time (see .ci/run).

//go:build !allocations

package api_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/api"
	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
)

// contractCase is one request of the contract test and the status it must
// get; its answer (and, for a 2xx or 304, the request too) must match
// the OpenAPI document.
type contractCase struct {
	name string
	// method is GET unless given (see answerProblem).
	method  string
	path    string
	headers []string
	// body is sent with the request (see checkOverConnections).
	body   []byte
	status int
	// shaped marks a request whose keys or exclude leave fields out of
	// the answer, which the schemas cannot say: its request is validated,
	// and its answer must be JSON of the status asked.
	shaped bool
}

// contract is the document the server answers at /openapi.json, loaded
// by a real OpenAPI 3.1 validator (kin-openapi, which checks the schemas
// of a 3.1 document as JSON Schema 2020-12): router finds the document's
// operation of a request.
type contract struct {
	router routers.Router
}

// contractValidator loads the document the server answers at
// /openapi.json, and checks it.
func contractValidator(t *testing.T, h *harness) contract {
	t.Helper()
	resp := h.get("/openapi.json")
	raw := readBody(t, resp)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/openapi.json: status %d", resp.StatusCode)
	}
	doc := loadDocument(t, raw)
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("document version %q, want 3.1.0", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		t.Fatalf("the document is not valid OpenAPI 3.1: %v", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("no router of the document: %v", err)
	}
	return contract{router: router}
}

// loadDocument loads an OpenAPI document from its JSON.
func loadDocument(t *testing.T, raw []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("the document does not load: %v", err)
	}
	return doc
}

// validationOptions are the validator's: every problem at once, a status
// the operation does not document refused, and the security schemes held
// to their header (see keyPresented).
var validationOptions = &openapi3filter.Options{
	MultiError:            true,
	IncludeResponseStatus: true,
	AuthenticationFunc:    keyPresented,
}

// keyPresented passes a security scheme of the document when the request
// carries its header: auth, or Authorization with the Bearer scheme. What
// the key is worth is the server's to judge.
func keyPresented(_ context.Context, input *openapi3filter.AuthenticationInput) error {
	scheme, req := input.SecurityScheme, input.RequestValidationInput.Request
	switch {
	case scheme.Type == "apiKey" && scheme.In == "header" && req.Header.Get(scheme.Name) != "":
		return nil
	case scheme.Type == "http" && strings.EqualFold(scheme.Scheme, "bearer"):
		if kind, _, ok := strings.Cut(req.Header.Get("Authorization"), " "); ok && strings.EqualFold(kind, "bearer") {
			return nil
		}
	}
	return fmt.Errorf("no %s credentials", input.SecuritySchemeName)
}

// requestInput finds the operation of req in the document.
func (c contract) requestInput(req *http.Request) (*openapi3filter.RequestValidationInput, error) {
	route, pathParams, err := c.router.FindRoute(req)
	if err != nil {
		return nil, fmt.Errorf("no operation of the document: %w", err)
	}
	return &openapi3filter.RequestValidationInput{Request: req, PathParams: pathParams, Route: route, Options: validationOptions}, nil
}

// validateRequest checks req against its operation.
func (c contract) validateRequest(req *http.Request) error {
	input, err := c.requestInput(req)
	if err != nil {
		return err
	}
	return openapi3filter.ValidateRequest(context.Background(), input)
}

// validateResponse checks resp, the answer to req, against the response
// its operation documents for its status: headers and body.
func (c contract) validateResponse(req *http.Request, resp *http.Response) error {
	input, err := c.requestInput(req)
	if err != nil {
		return err
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	status := resp.StatusCode
	if status == http.StatusNotModified {
		// kin-openapi passes every 304 unread: its headers are checked
		// under a status it reads, with the operation's 304 response.
		input = notModifiedAsRead(input)
		status = statusStandingForNotModified
	}
	return openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: input,
		Status:                 status,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(raw)),
		Options:                validationOptions,
	})
}

// statusStandingForNotModified is the status under which a 304's headers
// are validated: one no operation documents.
const statusStandingForNotModified = 299

// notModifiedAsRead is input with a route whose operation documents only
// its 304 response, under statusStandingForNotModified.
func notModifiedAsRead(input *openapi3filter.RequestValidationInput) *openapi3filter.RequestValidationInput {
	operation := *input.Route.Operation
	operation.Responses = openapi3.NewResponses()
	if notModified := input.Route.Operation.Responses.Status(http.StatusNotModified); notModified != nil {
		operation.Responses.Set(strconv.Itoa(statusStandingForNotModified), notModified)
	}
	route := *input.Route
	route.Operation = &operation
	read := *input
	read.Route = &route
	return &read
}

// bodyProblem checks body alone against the JSON schema the operation of
// req documents for status, every problem at once.
func (c contract) bodyProblem(req *http.Request, status int, body []byte) error {
	route, _, err := c.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("no operation of the document: %w", err)
	}
	response := route.Operation.Responses.Status(status)
	if response == nil {
		return fmt.Errorf("no %d response of %s %s", status, req.Method, req.URL.Path)
	}
	media := response.Value.Content.Get(fiber.MIMEApplicationJSON)
	if media == nil || media.Schema == nil {
		return fmt.Errorf("the %d response of %s %s has no JSON schema", status, req.Method, req.URL.Path)
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		return err
	}
	return media.Schema.Value.VisitJSON(value, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors())
}

// The documentation page and its script are validated as text: their
// schemas say they are strings.
func init() {
	openapi3filter.RegisterBodyDecoder(fiber.MIMETextHTML, openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder(fiber.MIMETextJavaScript, openapi3filter.PlainBodyDecoder)
}

// validateExchange checks req and resp, its answer.
func (c contract) validateExchange(req *http.Request, resp *http.Response) error {
	return errors.Join(c.validateRequest(req), c.validateResponse(req, resp))
}

// headersOfNoAnswer are the headers HTTP itself gives every answer, which
// a document does not list: the body's framing and type (its content),
// and the server's own.
var headersOfNoAnswer = []string{"Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding", "Date", "Server", "Connection"}

// undocumentedHeaders names the headers of resp, the answer to req, that
// the document's response for its operation and status does not list.
func (c contract) undocumentedHeaders(req *http.Request, resp *http.Response) []string {
	route, _, err := c.router.FindRoute(req)
	if err != nil {
		return []string{"(no operation of the document matches " + req.Method + " " + req.URL.Path + ")"}
	}
	response := route.Operation.Responses.Status(resp.StatusCode)
	if response == nil {
		response = route.Operation.Responses.Default()
	}
	if response == nil || response.Value == nil {
		return []string{fmt.Sprintf("(no %d response of %s %s)", resp.StatusCode, req.Method, req.URL.Path)}
	}
	var missing []string
	for name := range resp.Header {
		if slices.Contains(headersOfNoAnswer, name) {
			continue
		}
		documented := false
		for declared := range response.Value.Headers {
			if strings.EqualFold(declared, name) {
				documented = true
				break
			}
		}
		if !documented {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	return missing
}

// check sends each case through the real app and validates its answer.
func (h *harness) check(t *testing.T, v contract, cases []contractCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if problem := h.contractProblem(v, tt); problem != "" {
				t.Fatal(problem)
			}
		})
	}
}

// contractProblem is what is wrong with the answer to tt, or "".
func (h *harness) contractProblem(v contract, tt contractCase) string {
	sent := tt.request()
	resp, err := h.server.App().Test(sent, -1)
	if err != nil {
		return fmt.Sprintf("%s %s: %v", sent.Method, tt.path, err)
	}
	return v.answerProblem(tt, sent, resp)
}

// request is the request of tt.
func (tt contractCase) request() *http.Request {
	var body io.Reader
	if tt.body != nil {
		body = bytes.NewReader(tt.body)
	}
	req := httptest.NewRequest(cmp.Or(tt.method, http.MethodGet), tt.path, body)
	for i := 0; i+1 < len(tt.headers); i += 2 {
		req.Header.Set(tt.headers[i], tt.headers[i+1])
	}
	return req
}

// answerProblem is what is wrong with resp, the answer to sent, the
// request of tt, or "".
func (v contract) answerProblem(tt contractCase, sent *http.Request, resp *http.Response) string {
	method := sent.Method
	raw, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return fmt.Sprintf("%s %s: %v", method, tt.path, err)
	}
	if resp.StatusCode != tt.status {
		return fmt.Sprintf("%s %s: status %d, want %d; body %.300s", method, tt.path, resp.StatusCode, tt.status, raw)
	}
	// The answer to a method the route does not take (a 405) is held to
	// the responses of the one the document gives the path.
	req := sent.Clone(sent.Context())
	req.Method, req.Body = http.MethodGet, http.NoBody
	if req.URL.Path == leakReportPath {
		req.Method = http.MethodPost
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	var problem error
	switch {
	case tt.shaped:
		if problem = v.validateRequest(req); problem == nil && !json.Valid(raw) {
			return fmt.Sprintf("GET %s: the shaped answer is not JSON: %.300s", tt.path, raw)
		}
	case resp.StatusCode < http.StatusBadRequest:
		problem = v.validateExchange(req, resp)
	default:
		// The request of an error case is wrong on purpose.
		problem = v.validateResponse(req, resp)
	}
	if problem != nil {
		return fmt.Sprintf("%s %s → %d does not match the document: %v; body %.300s", method, tt.path, resp.StatusCode, problem, raw)
	}
	if missing := v.undocumentedHeaders(req, resp); len(missing) > 0 {
		return fmt.Sprintf("%s %s → %d carries headers the document does not list: %s", method, tt.path, resp.StatusCode, strings.Join(missing, ", "))
	}
	return ""
}

// checkOverConnections sends each case over a connection of its own to
// the real server and validates its answer: the framework's in-memory
// Test gives no answer to a request the HTTP server refuses before the
// app (a head or body over its limits), and the server closes the
// connection after one.
func (h *harness) checkOverConnections(t *testing.T, v contract, cases []contractCase) {
	t.Helper()
	addr := serveOn(t, h)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var request bytes.Buffer
			if err := tt.request().Write(&request); err != nil {
				t.Fatal(err)
			}
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			resp := rawExchange(t, conn, bufio.NewReader(conn), request.String())
			if problem := v.answerProblem(tt, tt.request(), resp); problem != "" {
				t.Fatal(problem)
			}
		})
	}
}

func TestEveryAnswerMatchesTheOpenAPIDocument(t *testing.T) {
	h := newTournamentHarness(t)
	v := contractValidator(t, h)
	ctx := context.Background()
	key := h.issue("900")
	blacklisted := h.issue("901")
	if err := h.keys.Blacklist(ctx, "901", "abuse", "mod"); err != nil {
		t.Fatal(err)
	}
	disabled := h.issue("902")
	if err := h.keys.Disable(ctx, "902", "bot", "left the server"); err != nil {
		t.Fatal(err)
	}
	unknown, err := keys.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	trackable := h.world.TrackableClanTags()[0]
	untrackable := ""
	for _, tag := range h.world.ClanTags() {
		if !slices.Contains(h.world.TrackableClanTags(), tag) {
			untrackable = tag
			break
		}
	}
	player := h.world.PlayerTags()[0]
	tournament := h.world.TournamentTags()[0]
	storeListFixtures(t, h)
	etag := h.get("/healthz").Header.Get("ETag")
	// The service's own 304s: those of the document and its page carry
	// the Cache-Control (and the page its CSP) of their 200.
	var notModified []contractCase
	for _, path := range []string{"/readyz", "/openapi.json", "/docs", "/docs/redoc.standalone.js", "/docs/redoc.standalone.js.LICENSE.txt"} {
		notModified = append(notModified, contractCase{name: path + " 304", path: path,
			headers: []string{"If-None-Match", h.get(path).Header.Get("ETag")}, status: 304})
	}
	h.check(t, v, notModified)
	auth := []string{"auth", key}
	bearer := []string{"Authorization", "Bearer " + key}

	// Search, battles, tracking, and each error every keyed route shares.
	h.check(t, v, []contractCase{
		{name: "healthz", path: "/healthz", status: 200},
		{name: "healthz 304", path: "/healthz", headers: []string{"If-None-Match", etag}, status: 304},
		{name: "readyz", path: "/readyz", status: 200},
		{name: "openapi.json", path: "/openapi.json", status: 200},
		{name: "openapi.json shaped", path: "/openapi.json?keys=openapi,info.title", status: 200, shaped: true},
		{name: "healthz shaped", path: "/healthz?exclude=status", status: 200, shaped: true},
		{name: "docs", path: "/docs", status: 200},
		{name: "docs script", path: "/docs/redoc.standalone.js", status: 200},
		{name: "docs script licence", path: "/docs/redoc.standalone.js.LICENSE.txt", status: 200},

		{name: "search", path: "/clan/search?name=royal&limit=3", headers: auth, status: 200},
		{name: "search from cache, with bearer", path: "/clan/search?name=royal&limit=3", headers: bearer, status: 200},
		{name: "search by every filter", path: "/clan/search?score=1000&minMembers=10&maxMembers=50&locationId=57000000&limit=100", headers: auth, status: 200},
		{name: "search without match", path: "/clan/search?name=zzzqqqxxx", headers: auth, status: 200},
		{name: "search without filter", path: "/clan/search?limit=5", headers: auth, status: 400},
		{name: "search bad limit", path: "/clan/search?name=royal&limit=0", headers: auth, status: 400},
		{name: "search bad cursor", path: "/clan/search?name=royal&after=%01", headers: auth, status: 400},
		{name: "search legacy paging", path: "/clan/search?name=royal&max=5&page=1", headers: auth, status: 200},
		{name: "search bad max", path: "/clan/search?name=royal&max=0", headers: auth, status: 400},
		{name: "search without key", path: "/clan/search?name=royal", status: 401},
		{name: "search unknown key", path: "/clan/search?name=royal", headers: []string{"auth", unknown}, status: 401},
		{name: "search malformed key", path: "/clan/search?name=royal", headers: []string{"Authorization", "Bearer nope"}, status: 401},
		{name: "search blacklisted key", path: "/clan/search?name=royal", headers: []string{"auth", blacklisted}, status: 403},
		{name: "search disabled key", path: "/clan/search?name=royal", headers: []string{"auth", disabled}, status: 401},

		{name: "battles", path: "/player/" + player + "/battles", headers: auth, status: 200},
		{name: "battles with #", path: "/player/%23" + player + "/battles", headers: auth, status: 200},
		{name: "battles legacy paging", path: "/player/" + player + "/battles?max=3&page=0", headers: auth, status: 200},
		{name: "battles bad page", path: "/player/" + player + "/battles?page=-1", headers: auth, status: 400},
		{name: "battles bad tag", path: "/player/ABC/battles", headers: auth, status: 400},
		{name: "battles short tag", path: "/player/22/battles", headers: auth, status: 400},
		{name: "battles tag with a line break", path: "/player/2P%0AP/battles", headers: auth, status: 400},
		{name: "battles unknown player", path: "/player/" + tagUnknown + "/battles", headers: auth, status: 404},
		{name: "battles without key", path: "/player/" + player + "/battles", status: 401},

		{name: "tracking never tracked", path: "/clan/" + trackable + "/tracking", headers: auth, status: 200},
		{name: "track", path: "/clan/" + trackable + "/track", headers: auth, status: 200},
		{name: "track again", path: "/clan/" + trackable + "/track", headers: bearer, status: 200},
		{name: "track without the address", path: "/clan/" + untrackable + "/track", headers: auth, status: 417},
		{name: "track unknown clan", path: "/clan/" + tagUnknown + "/track", headers: auth, status: 404},
		{name: "track bad tag", path: "/clan/ABC/track", headers: auth, status: 400},
		{name: "track blacklisted key", path: "/clan/" + trackable + "/track", headers: []string{"auth", blacklisted}, status: 403},
		{name: "tracking", path: "/clan/" + trackable + "/tracking", headers: auth, status: 200},
		{name: "tracking bad tag", path: "/clan/2222222222222222/tracking", headers: auth, status: 400},
		{name: "tracking without key", path: "/clan/" + trackable + "/tracking", status: 401},

		{name: "stats", path: "/auth/stats", headers: auth, status: 200},
		{name: "stats with bearer", path: "/auth/stats", headers: bearer, status: 200},
		{name: "stats without key", path: "/auth/stats", status: 401},
		{name: "stats unknown key", path: "/auth/stats", headers: []string{"auth", unknown}, status: 401},
		{name: "stats blacklisted key", path: "/auth/stats", headers: []string{"auth", blacklisted}, status: 403},

		// What any route answers to a method it does not take.
		{name: "search POST", method: http.MethodPost, path: "/clan/search?name=royal", headers: auth, status: 405},
		{name: "history DELETE", method: http.MethodDelete, path: "/clan/" + trackable + "/history", headers: auth, status: 405},
		{name: "stats OPTIONS", method: http.MethodOptions, path: "/auth/stats", status: 405},
		{name: "healthz PUT", method: http.MethodPut, path: "/healthz", status: 405},
		{name: "openapi.json PATCH", method: http.MethodPatch, path: "/openapi.json", status: 405},
		{name: "docs POST", method: http.MethodPost, path: "/docs", status: 405},
		{name: "leak reports GET", path: leakReportPath, status: 405},
	})
	// Keyed 304s: from the cache (x-cached) and from the database.
	battlesTag := h.get("/player/"+player+"/battles", auth...).Header.Get("ETag")
	trackingTag := h.get("/clan/"+trackable+"/tracking", auth...).Header.Get("ETag")
	h.check(t, v, []contractCase{
		{name: "battles 304", path: "/player/" + player + "/battles", headers: append([]string{"If-None-Match", battlesTag}, auth...), status: 304},
		{name: "tracking 304", path: "/clan/" + trackable + "/tracking", headers: append([]string{"If-None-Match", trackingTag}, auth...), status: 304},
		{name: "stats shaped", path: "/auth/stats?keys=id", headers: auth, status: 200, shaped: true},
	})
	// Stats once usage is stored: days, routes and a last request.
	if err := h.keys.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	h.check(t, v, []contractCase{{name: "stats with usage", path: "/auth/stats", headers: auth, status: 200}})

	// History, once the tracked clan has a snapshot.
	clan, err := h.clans.TrackedClan(ctx, trackable)
	if err != nil {
		t.Fatal(err)
	}
	snapshot := models.HistorySnapshot{Slot: models.SnapshotFourHourly.SlotAt(h.clock.Now()), Donations: 12, MemberCount: 1,
		Members: []models.HistoryMember{{ClanRank: 1, Crowns: 3, Donations: 12, Name: "Ann", Tag: "2PP", Trophies: 4000}}}
	if _, err := h.clans.SaveSnapshots(ctx, clan.ID, models.SnapshotFourHourly, []models.HistorySnapshot{snapshot}); err != nil {
		t.Fatal(err)
	}
	h.check(t, v, []contractCase{
		{name: "history", path: "/clan/" + trackable + "/history", headers: auth, status: 200},
		{name: "history of a day", path: "/clan/" + trackable + "/history?days=0", headers: bearer, status: 200},
		{name: "history bad days", path: "/clan/" + trackable + "/history?days=366", headers: auth, status: 400},
		{name: "history bad tag", path: "/clan/ABC/history", headers: auth, status: 400},
		{name: "history untracked", path: "/clan/" + untrackable + "/history", headers: auth, status: 417},
		{name: "history without key", path: "/clan/" + trackable + "/history", status: 401},
		{name: "weekly not enabled", path: "/clan/" + trackable + "/history/weekly", headers: auth, status: 417},
		{name: "weekly untracked", path: "/clan/" + untrackable + "/history/weekly", headers: auth, status: 417},
		{name: "weekly bad days", path: "/clan/" + trackable + "/history/weekly?days=x", headers: auth, status: 400},
		{name: "history keys", path: "/clan/" + trackable + "/history?exclude=members", headers: auth, status: 200, shaped: true},
	})
	if _, err := h.clans.SetWeekly(ctx, trackable, true); err != nil {
		t.Fatal(err)
	}
	h.check(t, v, []contractCase{
		{name: "weekly", path: "/clan/" + trackable + "/history/weekly?days=14", headers: auth, status: 200},
	})

	// Tournaments, switched on.
	var tournamentCases []contractCase
	for _, path := range []string{"/tournament/", "/tournaments/"} {
		tournamentCases = append(tournamentCases,
			contractCase{name: path + "one", path: path + tournament, headers: auth, status: 200},
			contractCase{name: path + "several", path: path + tournament + "," + h.world.TournamentTags()[1], headers: auth, status: 200},
			contractCase{name: path + "unknown", path: path + unknownTournamentA, headers: auth, status: 404},
			contractCase{name: path + "bad tag", path: path + "ABC", headers: auth, status: 400},
			contractCase{name: path + "empty tag", path: path + tournament + ",", headers: auth, status: 400},
			contractCase{name: path + "long tag with a line break", path: path + tournament + ",2P%0A" + strings.Repeat("P", 20), headers: auth, status: 400},
			contractCase{name: path + "too many", path: path + strings.Repeat("2PP,", 10) + "2PP", headers: auth, status: 400},
			contractCase{name: path + "without key", path: path + tournament, status: 401},
			contractCase{name: path + "blacklisted", path: path + tournament, headers: []string{"auth", blacklisted}, status: 403},
			contractCase{name: path + "POST", method: http.MethodPost, path: path + tournament, headers: auth, status: 405},
		)
	}
	for _, list := range []struct{ name string }{
		{"known"}, {"open"}, {"joinable"}, {"1k"}, {"full"}, {"inprep"},
	} {
		path := "/tournaments/" + list.name
		tournamentCases = append(tournamentCases,
			contractCase{name: list.name, path: path, headers: auth, status: 200},
			contractCase{name: list.name + " filtered", path: path + "?open=1", headers: bearer, status: 200},
			contractCase{name: list.name + " bad filter", path: path + "?open=2", headers: auth, status: 400},
			contractCase{name: list.name + " bad max", path: path + "?max=101", headers: auth, status: 400},
			contractCase{name: list.name + " without key", path: path, status: 401},
			contractCase{name: list.name + " DELETE", method: http.MethodDelete, path: path, headers: auth, status: 405},
		)
	}
	h.check(t, v, tournamentCases)
}

// Tournaments whose status or type the game API does not name (its
// UNKNOWN) are answered, looked up and in every list, within the
// document's enums.
func TestUnknownTournamentValuesMatchTheOpenAPIDocument(t *testing.T) {
	h, key := newUnknownValuesHarness(t, store.DialectSQLite)
	v := contractValidator(t, h)
	auth := []string{"auth", key}
	both := tournamentOfUnknownStatus + "," + tournamentOfUnknownType
	cases := []contractCase{
		{name: "unknown status", path: "/tournament/" + tournamentOfUnknownStatus, headers: auth, status: 200},
		{name: "unknown type", path: "/tournaments/" + tournamentOfUnknownType, headers: auth, status: 200},
		{name: "both", path: "/tournament/" + both, headers: auth, status: 200},
	}
	for _, list := range []string{"known", "open", "joinable", "1k", "full", "inprep"} {
		cases = append(cases, contractCase{name: list, path: "/tournaments/" + list, headers: auth, status: 200})
	}
	h.check(t, v, cases)
}

// TestOpenAPIRefusalsBeforeTheRoutes: a body or head over the HTTP
// server's limits is refused before any route, on every route, as the
// document says.
func TestOpenAPIRefusalsBeforeTheRoutes(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	v := contractValidator(t, h)
	key := h.issue("950")
	large := bytes.Repeat([]byte("x"), 17<<10)
	filler := []string{"X-Filler", strings.Repeat("x", 9<<10)}
	h.checkOverConnections(t, v, []contractCase{
		{name: "battles with a large body", path: "/player/2PP/battles", headers: []string{"auth", key}, body: large, status: 413},
		{name: "readyz with a large body", path: "/readyz", body: large, status: 413},
		{name: "leak report over 256 KiB", method: http.MethodPost, path: leakReportPath, body: bytes.Repeat([]byte("x"), 257<<10), status: 413},
		{name: "tracking with a large head", path: "/clan/2PP/tracking", headers: append([]string{"auth", key}, filler...), status: 431},
		{name: "search with a long query", path: "/clan/search?name=" + strings.Repeat("x", 9<<10), headers: []string{"auth", key}, status: 431},
		{name: "docs with a large head", path: "/docs", headers: filler, status: 431},
	})
}

func TestOpenAPIErrorsOfOtherServers(t *testing.T) {
	off := newHarness(t, harnessOptions{})
	v := contractValidator(t, off)
	off.check(t, v, []contractCase{
		{name: "tournament off", path: "/tournament/2PP", status: 501},
		{name: "tournaments alias off", path: "/tournaments/2PP", status: 501},
		{name: "list off", path: "/tournaments/known", status: 501},
	})

	limited := newHarness(t, harnessOptions{config: func(c *api.Config) { c.RateLimitPerSecond, c.RateLimitBurst = 1.0/3600, 1 }})
	key := limited.issue("910")
	limited.check(t, v, []contractCase{
		{name: "within the limit", path: "/player/" + limited.world.PlayerTags()[0] + "/battles", headers: []string{"auth", key}, status: 200},
		{name: "rate limited", path: "/player/" + limited.world.PlayerTags()[0] + "/battles", headers: []string{"auth", key}, status: 429},
	})

	// The other 429s carry the retry headers too: the key lookups of one
	// client address (refused before the key is known) and the game-API
	// calls of one key.
	lookups := newHarness(t, harnessOptions{config: func(c *api.Config) { c.KeyLookupsPerAddress = 1.0 / 3600 }})
	lookups.check(t, v, []contractCase{
		{name: "first unknown key", path: "/clan/search?name=royal", headers: []string{"auth", newUnknownKey(t)}, status: 401},
		{name: "lookups of one address spent", path: "/clan/search?name=royal", headers: []string{"auth", newUnknownKey(t)}, status: 429},
		{name: "stats, lookups spent", path: "/auth/stats", headers: []string{"auth", newUnknownKey(t)}, status: 429},
	})
	calls := newHarness(t, harnessOptions{config: func(c *api.Config) { c.GameCallsPerKey = 1.0 / 3600 }})
	key = calls.issue("915")
	players := calls.world.PlayerTags()
	calls.check(t, v, []contractCase{
		{name: "first game call", path: "/player/" + players[0] + "/battles", headers: []string{"auth", key}, status: 200},
		{name: "game calls of the key spent", path: "/player/" + players[1] + "/battles", headers: []string{"auth", key}, status: 429},
	})

	maintenance := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"reason":"inMaintenance"}`))
	})
	down := newHarness(t, harnessOptions{upstream: maintenance, config: func(c *api.Config) { c.Tournaments = true }})
	key = down.issue("920")
	down.check(t, v, []contractCase{
		{name: "search upstream down", path: "/clan/search?name=royal", headers: []string{"auth", key}, status: 503},
		{name: "battles upstream down", path: "/player/2PP/battles", headers: []string{"auth", key}, status: 503},
		{name: "track upstream down", path: "/clan/2PP/track", headers: []string{"auth", key}, status: 503},
		{name: "tournament upstream down", path: "/tournament/2PP", headers: []string{"auth", key}, status: 503},
	})

	failing := newHarness(t, harnessOptions{game: failingGame{err: errors.New("unexpected")}})
	key = failing.issue("930")
	failing.check(t, v, []contractCase{
		{name: "unexpected failure", path: "/player/2PP/battles", headers: []string{"auth", key}, status: 500},
	})

	closed := newHarness(t, harnessOptions{})
	key = closed.issue("940")
	if err := closed.db.Close(); err != nil {
		t.Fatal(err)
	}
	closed.check(t, v, []contractCase{
		{name: "readyz database down", path: "/readyz", status: 503},
		{name: "history database down", path: "/clan/2PP/history", headers: []string{"auth", key}, status: 503},
		{name: "tracking database down", path: "/clan/2PP/tracking", headers: []string{"auth", key}, status: 503},
	})
}

// newUnknownKey is a well-formed key no database knows.
func newUnknownKey(t *testing.T) string {
	t.Helper()
	raw, err := keys.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// documentModel is the document the server answers, as a model.
func documentModel(t *testing.T, h *harness) *openapi3.T {
	t.Helper()
	return loadDocument(t, readBody(t, h.get("/openapi.json")))
}

// takesParameter tells whether parameters declare the parameter name
// in in ("header", "query"...); header names are told apart without case.
func takesParameter(parameters openapi3.Parameters, in, name string) bool {
	for _, ref := range parameters {
		p := ref.Value
		if p.In == in && (p.Name == name || in == "header" && strings.EqualFold(p.Name, name)) {
			return true
		}
	}
	return false
}

// answersJSON tells whether operation's 200 is JSON.
func answersJSON(operation *openapi3.Operation) bool {
	ok := operation.Responses.Status(http.StatusOK)
	return ok != nil && ok.Value.Content.Get(fiber.MIMEApplicationJSON) != nil
}

// fiberParam matches a Fiber path parameter (":tag").
var fiberParam = regexp.MustCompile(`:([A-Za-z]+)`)

// TestOpenAPIDocumentsEveryRoute holds the document and the app's routes
// to the same set: a route added to one and not the other fails here.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	h := newTournamentHarness(t)
	documented := map[string]bool{}
	for path, item := range documentModel(t, h).Paths.Map() {
		if path == leakReportPath {
			if item.Post == nil || item.Get != nil || item.Put != nil || item.Patch != nil || item.Delete != nil {
				t.Errorf("%s: documented with other methods than POST", path)
			}
			documented[path] = true
			continue
		}
		if item.Get == nil {
			t.Errorf("%s: documented without GET", path)
		} else {
			if !takesParameter(item.Get.Parameters, "header", fiber.HeaderIfNoneMatch) {
				// Every GET answers 304 to a matching If-None-Match.
				t.Errorf("GET %s: If-None-Match is not among its parameters", path)
			}
			// keys and exclude shape every JSON answer.
			for _, name := range []string{"keys", "exclude"} {
				if answersJSON(item.Get) && !takesParameter(item.Get.Parameters, "query", name) {
					t.Errorf("GET %s: answers JSON, but %s is not among its parameters", path, name)
				}
			}
		}
		if item.Post != nil || item.Put != nil || item.Patch != nil || item.Delete != nil {
			t.Errorf("%s: documents a method the API refuses", path)
		}
		documented[path] = true
	}
	served := map[string]bool{}
	for _, route := range h.server.App().GetRoutes(true) {
		switch route.Method {
		case http.MethodGet:
			served[fiberParam.ReplaceAllString(route.Path, "{$1}")] = true
		case http.MethodHead:
		case http.MethodPost:
			if route.Path != leakReportPath {
				t.Errorf("POST %s: only %s takes POST", route.Path, leakReportPath)
			}
			served[route.Path] = true
		default:
			t.Errorf("%s %s: a route of a method other than GET and HEAD", route.Method, route.Path)
		}
	}
	for path := range served {
		if !documented[path] {
			t.Errorf("GET %s is served but not in the document", path)
		}
	}
	for path := range documented {
		if !served[path] {
			t.Errorf("%s is in the document but not served", path)
		}
	}
	if len(served) < 17 {
		t.Fatalf("only %d GET routes found: %v", len(served), served)
	}
}

func TestOpenAPIDocumentAnswer(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	resp := h.get("/openapi.json", "Accept-Encoding", "gzip")
	raw := readBody(t, resp)
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != http.StatusOK || etag == "" || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, ETag %q, Content-Type %q", resp.StatusCode, etag, resp.Header.Get("Content-Type"))
	}
	plain := readBody(t, h.get("/openapi.json"))
	if !bytes.HasPrefix(plain, []byte(`{"openapi":"3.1.0","info":{`)) {
		t.Fatalf("the document does not start as written: %.60s", plain)
	}
	if resp.Header.Get("Content-Encoding") != "gzip" || len(raw) >= len(plain) {
		t.Fatalf("the document is not sent compressed to a gzip client (%d of %d bytes)", len(raw), len(plain))
	}
	if got := h.get("/openapi.json", "If-None-Match", etag); got.StatusCode != http.StatusNotModified {
		t.Fatalf("If-None-Match: status %d, want 304", got.StatusCode)
	}
	docs := h.get("/docs")
	csp := docs.Header.Get("Content-Security-Policy")
	if docs.StatusCode != http.StatusOK || !strings.Contains(docs.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") {
		t.Fatalf("/docs: status %d, Content-Type %q, CSP %q", docs.StatusCode, docs.Header.Get("Content-Type"), csp)
	}
	expectError(t, h.do(http.MethodPost, "/openapi.json"), http.StatusMethodNotAllowed, "Method not allowed")
	expectError(t, h.get("/docs/nothing"), http.StatusNotFound, "Path not found")
}

// The answers of the leak-report route match the document: the verdicts,
// the refusal of an unsigned report and of a compressed one.
func TestLeakReportAnswersMatchTheOpenAPIDocument(t *testing.T) {
	github := newLeakSigner(t, "github-key-1")
	h := newLeakHarness(t, github)
	v := contractValidator(t, h)
	body := reportOf(t, h.issue("1"), "crw_nothing")
	tests := []struct {
		name    string
		headers []string
		status  int
	}{
		{"signed", github.signed(t, body), http.StatusOK},
		{"badly signed", []string{"Github-Public-Key-Identifier", github.id, "Github-Public-Key-Signature", "AAAA"}, http.StatusUnauthorized},
		{"compressed", append(github.signed(t, body), "Content-Encoding", "gzip"), http.StatusUnsupportedMediaType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, leakReportPath, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(tt.headers); i += 2 {
				req.Header.Set(tt.headers[i], tt.headers[i+1])
			}
			resp, err := h.server.App().Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			raw := readBody(t, resp)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d; body %s", resp.StatusCode, tt.status, raw)
			}
			resp.Body = io.NopCloser(bytes.NewReader(raw))
			req.Body = io.NopCloser(bytes.NewReader(body))
			if err := v.validateResponse(req, resp); err != nil {
				t.Fatalf("answer %s does not match the document: %v", raw, err)
			}
			if missing := v.undocumentedHeaders(req, resp); len(missing) > 0 {
				t.Fatalf("the answer carries headers the document does not list: %s", strings.Join(missing, ", "))
			}
		})
	}
}

// TestTheDocumentHoldsTheContractsErrorTexts: the document gives each
// error status of a route the texts the contract words it with, and no
// other, so that an answer whose text drifted fails the validation of
// the answers above. An answer of the status with a text the contract
// does not give it is refused for its statusText, and one with the
// contract's text is not.
func TestTheDocumentHoldsTheContractsErrorTexts(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	v := contractValidator(t, h)
	tests := []struct {
		method, path string
		status       int
		right, wrong string
	}{
		{http.MethodGet, "/clan/search", 400, "at least one filter is required: name, score, minMembers or locationId", "a filter is required"},
		{http.MethodGet, "/clan/2PP/history", 400, "invalid value for 'days': must be between 0 and 365", "invalid days"},
		{http.MethodGet, "/player/2PP/battles", 400, "illegal characters in tag 'ABC' (allowed: 0289CGJLPQRUVY)", "illegal tag 'ABC'"},
		{http.MethodGet, "/player/2PP/battles", 400, "tag too long", "tag is long"},
		{http.MethodGet, "/tournament/2PP", 400, "tag too short: ''", "tag is short"},
		{http.MethodGet, "/clan/search", 401, "Unauthorized; missing authentication key", "Unauthorized"},
		{http.MethodGet, "/auth/stats", 401, "Unauthorized; key disabled: its owner is no longer a member of the community server", "Unauthorized; key disabled"},
		{http.MethodGet, "/clan/search", 401, "Unauthorized; unknown token", "Unauthorized; missing or invalid signature"},
		{http.MethodGet, "/clan/search", 403, "Forbidden; key blacklisted", "Forbidden"},
		{http.MethodGet, "/player/2PP/battles", 404, "Not found", "Path not found"},
		{http.MethodGet, "/clan/2PP/history", 417, "clan not tracked", "not tracked"},
		{http.MethodGet, "/clan/2PP/history/weekly", 417, "weekly history not enabled for this clan", "weekly history not enabled"},
		{http.MethodGet, "/clan/2PP/track", 417, "clan should have 'crowns.example' in description", "clan should have crowns.example in description"},
		{http.MethodGet, "/tournaments/known", 429, "Rate limit exceeded", "Too Many Requests"},
		{http.MethodGet, "/tournaments/known", 501, "Not Implemented", "Not implemented"},
		{http.MethodGet, "/readyz", 503, "Temporarily unavailable", "Service Unavailable"},
		{http.MethodGet, "/clan/search", 500, "Internal server error", "database is locked"},
		{http.MethodGet, "/healthz", 405, "Method not allowed", "Method Not Allowed"},
		{http.MethodGet, "/player/2PP/battles", 413, "Request Entity Too Large", "Payload Too Large"},
		{http.MethodGet, "/docs", 431, "Request Header Fields Too Large", "Headers Too Large"},
		{http.MethodPost, leakReportPath, 400, "Bad Request", "not an array"},
		{http.MethodPost, leakReportPath, 401, "Unauthorized; missing or invalid signature", "Unauthorized; unknown token"},
		{http.MethodPost, leakReportPath, 405, "Method not allowed", "Not allowed"},
		{http.MethodPost, leakReportPath, 415, "Unsupported Media Type", "gzip refused"},
		{http.MethodPost, leakReportPath, 503, "Temporarily unavailable", "busy"},
	}
	for _, tt := range tests {
		for _, text := range []string{tt.right, tt.wrong} {
			t.Run(fmt.Sprintf("%s %d %s", tt.path, tt.status, text), func(t *testing.T) {
				body, err := json.Marshal(map[string]any{"error": true, "statusCode": tt.status, "statusText": text, "info": "i", "eventId": "e1"})
				if err != nil {
					t.Fatal(err)
				}
				problem := v.bodyProblem(httptest.NewRequest(tt.method, tt.path, nil), tt.status, body)
				refused := strings.Contains(fmt.Sprint(problem), "statusText")
				if text == tt.right && refused {
					t.Errorf("the contract's text is refused: %v", problem)
				}
				if text == tt.wrong && !refused {
					t.Errorf("a text the contract does not give %d is taken (%v)", tt.status, problem)
				}
			})
		}
	}
}

// TestTheDocumentHoldsTheContractsHeaderValues: a keyed answer whose
// header departs from the form the contract gives it is refused by the
// document, so that a drifted header fails the answers' validation; the
// answer as served is taken.
func TestTheDocumentHoldsTheContractsHeaderValues(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	v := contractValidator(t, h)
	key := h.issue("960")
	served := h.get("/player/"+h.world.PlayerTags()[0]+"/battles", "auth", key)
	body := readBody(t, served)
	tests := []struct{ header, value string }{
		{"", ""},
		{"RateLimit-Policy", "default;q=10"},
		{"RateLimit-Policy", `"default";q=10;w=60`},
		{"RateLimit", `"default";r=19`},
		{"RateLimit", "19"},
		{"x-ratelimit-limit", "ten"},
		{"x-ratelimit-remaining", "-1"},
		{"Cache-Control", "no-store"},
		{"Vary", "Accept-Encoding"},
		{"X-Content-Type-Options", "sniff"},
		{"x-cached", "false"},
	}
	for _, tt := range tests {
		t.Run(tt.header+" "+tt.value, func(t *testing.T) {
			resp := &http.Response{StatusCode: served.StatusCode, Header: served.Header.Clone(), Body: io.NopCloser(bytes.NewReader(body))}
			if tt.header != "" {
				resp.Header.Set(tt.header, tt.value)
			}
			req := httptest.NewRequest(http.MethodGet, "/player/2PP/battles", nil)
			problem := v.validateResponse(req, resp)
			switch {
			case tt.header == "" && problem != nil:
				t.Fatalf("the answer as served is refused: %v", problem)
			case tt.header != "" && !strings.Contains(strings.ToLower(fmt.Sprint(problem)), strings.ToLower(tt.header)):
				t.Fatalf("%s: %s is taken (%v)", tt.header, tt.value, problem)
			}
		})
	}
}

// TestOpenAPIStartingAnswers: what the API's port answers while the
// process starts (StartingHandler) is what the document says.
func TestOpenAPIStartingAnswers(t *testing.T) {
	h := newHarness(t, harnessOptions{})
	v := contractValidator(t, h)
	starting := api.StartingHandler("see the docs")
	for _, tt := range []contractCase{
		{name: "healthz starting", path: "/healthz", status: 200},
		{name: "readyz starting", path: "/readyz", status: 503},
		{name: "history starting", path: "/clan/2PP/history", headers: []string{"auth", newUnknownKey(t)}, status: 503},
	} {
		t.Run(tt.name, func(t *testing.T) {
			answer := httptest.NewRecorder()
			starting.ServeHTTP(answer, tt.request())
			if problem := v.answerProblem(tt, tt.request(), answer.Result()); problem != "" {
				t.Fatal(problem)
			}
		})
	}
}
