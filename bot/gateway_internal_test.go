package bot

import (
	"bytes"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// A lost gateway is reconnected by Run alone, with the house backoff:
// discordgo's own reconnect loop, which would race it with waits of its
// own, stays off.
func TestTheSessionLeavesReconnectingToRun(t *testing.T) {
	b, err := New(Config{Token: "token", GuildID: "1", KeyChannelID: "2"}, Dependencies{Keys: unusedKeys{}, Cursors: unusedCursors{}})
	if err != nil {
		t.Fatal(err)
	}
	if b.session.ShouldReconnectOnError {
		t.Fatal("discordgo reconnects lost gateways itself")
	}
}

// unusedKeys and unusedCursors stand in for dependencies New keeps but
// does not call.
type (
	unusedKeys    struct{ KeyService }
	unusedCursors struct{ CursorStore }
)

// The session prints nothing of its own: discordgo writes its errors with
// the standard library's log, which would put a plain line among the JSON
// records of CROWNS_LOG_FORMAT=json. A gateway that cannot be dialled is
// such an error; Open returns it, and the bot logs it.
func TestTheSessionPrintsNothingOfItsOwn(t *testing.T) {
	unreachable := httptest.NewServer(http.NotFoundHandler())
	gatewayURL := "ws" + strings.TrimPrefix(unreachable.URL, "http")
	unreachable.Close()
	discord := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"url": %q}`, gatewayURL)
	}))
	defer discord.Close()
	target, _ := url.Parse(discord.URL)
	client := &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		out := req.Clone(req.Context())
		out.URL.Scheme, out.URL.Host, out.Host = target.Scheme, target.Host, target.Host
		return http.DefaultTransport.RoundTrip(out)
	})}
	b, err := New(Config{Token: "token", GuildID: "1", KeyChannelID: "2", HTTPClient: client}, Dependencies{Keys: unusedKeys{}, Cursors: unusedCursors{}})
	if err != nil {
		t.Fatal(err)
	}

	var printed bytes.Buffer
	defer log.SetOutput(log.Writer())
	log.SetOutput(&printed)
	if err := b.session.Open(); err == nil {
		_ = b.session.Close()
		t.Fatal("the gateway was reached")
	}
	if printed.Len() > 0 {
		t.Errorf("the session printed %q", printed.String())
	}
}

// roundTripFunc is an http.RoundTripper of one function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
