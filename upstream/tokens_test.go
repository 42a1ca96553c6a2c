package upstream_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

// tokenRecorder is a fake game API that records the token of every request
// and refuses (403) the tokens in refused.
type tokenRecorder struct {
	mu      sync.Mutex
	seen    []string
	refused map[string]bool
}

func (r *tokenRecorder) serve(w http.ResponseWriter, req *http.Request, _ int) {
	token := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	r.mu.Lock()
	r.seen = append(r.seen, token)
	refused := r.refused[token]
	r.mu.Unlock()
	if refused {
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`{"reason":"accessDenied","message":"Invalid authorization: token ` + token + ` revoked"}`))
		return
	}
	_, _ = w.Write([]byte(`[]`))
}

// taken returns and forgets the tokens seen so far.
func (r *tokenRecorder) taken() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := r.seen
	r.seen = nil
	return seen
}

func TestSeveralTokensAreUsedInTurn(t *testing.T) {
	recorder := &tokenRecorder{}
	base, _ := countingUpstream(t, recorder.serve)
	client, _ := newClient(t, base, upstream.Config{Token: "tok-a, tok-b,tok-c"})
	for range 6 {
		if _, err := client.PlayerBattles(context.Background(), "P2Q8"); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(recorder.taken(), " ")
	if got != "tok-a tok-b tok-c tok-a tok-b tok-c" {
		t.Fatalf("tokens sent: %s", got)
	}
}

func TestARefusedTokenIsSetAsideAndTriedAgainLater(t *testing.T) {
	recorder := &tokenRecorder{refused: map[string]bool{"tok-a": true}}
	base, _ := countingUpstream(t, recorder.serve)
	clock := models.NewManualClock(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	client, logs := newClient(t, base, upstream.Config{Token: "tok-a,tok-b", Clock: clock})
	for range 4 {
		if _, err := client.PlayerBattles(context.Background(), "P2Q8"); err != nil {
			t.Fatalf("a call with one good token left failed: %v", err)
		}
	}
	if got := strings.Join(recorder.taken(), " "); got != "tok-a tok-b tok-b tok-b tok-b" {
		t.Fatalf("tokens sent: %s, want the refused one once, then the other only", got)
	}
	out := logs.String()
	if !strings.Contains(out, "token=1 of=2") || strings.Contains(out, "tok-a") {
		t.Fatalf("the refusal is not logged by the token's place, or the token is logged:\n%s", out)
	}
	clock.Advance(10 * time.Minute)
	recorder.refused = map[string]bool{}
	for range 2 {
		if _, err := client.PlayerBattles(context.Background(), "P2Q8"); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Join(recorder.taken(), " "); !strings.Contains(got, "tok-a") {
		t.Fatalf("the set-aside token was not tried again after its time out: %s", got)
	}
}

func TestEveryTokenRefusedIsUnavailable(t *testing.T) {
	recorder := &tokenRecorder{refused: map[string]bool{"tok-a": true, "tok-b": true}}
	base, _ := countingUpstream(t, recorder.serve)
	client, logs := newClient(t, base, upstream.Config{Token: "tok-a,tok-b"})
	_, err := client.PlayerBattles(context.Background(), "P2Q8")
	if !errors.Is(err, models.ErrUnavailable) {
		t.Fatalf("error %v, want unavailable", err)
	}
	if out := logs.String(); strings.Contains(out, "tok-a") || strings.Contains(out, "tok-b") {
		t.Fatalf("a token was logged:\n%s", out)
	}
}
