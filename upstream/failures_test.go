package upstream_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/legacy"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream"
)

// countingUpstream answers every request with answer and counts them.
func countingUpstream(t *testing.T, answer func(w http.ResponseWriter, r *http.Request, n int)) (string, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	base := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		answer(w, r, int(calls.Add(1)))
	})
	return base, &calls
}

func errorAnswer(status int, retryAfter, body string) func(http.ResponseWriter, *http.Request, int) {
	return func(w http.ResponseWriter, _ *http.Request, _ int) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func TestErrorMapping(t *testing.T) {
	tests := []struct {
		name       string
		answer     func(http.ResponseWriter, *http.Request, int)
		timeout    time.Duration
		sentinel   error
		retryAfter time.Duration
		calls      int32
		logged     string
	}{
		{"404 is not found", errorAnswer(404, "", `{"reason":"notFound"}`), 0, models.ErrNotFound, 0, 1, "level=DEBUG"},
		{"403 is a loud configuration problem", errorAnswer(403, "", `{"reason":"accessDenied.invalidIp","message":"Invalid authorization: API key does not allow access from IP 192.0.2.7"}`),
			0, models.ErrUnavailable, 60 * time.Second, 1, "level=ERROR msg=\"the game API refused our token: check CROWNS_UPSTREAM_TOKEN and the token's allowed IP addresses\""},
		{"429 with a Retry-After past the deadline", errorAnswer(429, "7", `{"reason":"requestThrottled"}`), 300 * time.Millisecond, models.ErrUnavailable, 7 * time.Second, 1, "status=429"},
		{"429 retried", errorAnswer(429, "", `{"reason":"requestThrottled"}`), 0, models.ErrUnavailable, 10 * time.Second, 3, "retrying"},
		{"503 maintenance", errorAnswer(503, "", `{"reason":"inMaintenance"}`), 0, models.ErrUnavailable, 30 * time.Second, 3, "maintenance"},
		{"503 with an HTTP-date Retry-After", errorAnswer(503, time.Now().Add(time.Hour).UTC().Format(http.TimeFormat), `{"reason":"inMaintenance"}`),
			0, models.ErrUnavailable, 0, 1, "maintenance"},
		{"502 retried", errorAnswer(502, "", "<html>bad gateway</html>"), 0, models.ErrUnavailable, 10 * time.Second, 3, "status=502"},
		{"504 retried", errorAnswer(504, "", "<html>gateway timeout</html>"), 0, models.ErrUnavailable, 10 * time.Second, 3, "status=504"},
		{"200 that does not decode", errorAnswer(200, "", `{"tag": "#C2Q8", "members": "many"`), 0, models.ErrUnavailable, 10 * time.Second, 1, "does not decode"},
		{"unexpected 418", errorAnswer(418, "", ``), 0, models.ErrUnavailable, 10 * time.Second, 1, "unexpected status"},
		{"429 with a Retry-After of centuries", errorAnswer(429, "99999999999", `{"reason":"requestThrottled"}`), 300 * time.Millisecond, models.ErrUnavailable, time.Hour, 1, "status=429"},
		{"429 with a Retry-After of a year", errorAnswer(429, "31536000", `{"reason":"requestThrottled"}`), 300 * time.Millisecond, models.ErrUnavailable, time.Hour, 1, "status=429"},
		{"503 with an HTTP-date Retry-After a year ahead", errorAnswer(503, time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat), `{"reason":"inMaintenance"}`),
			300 * time.Millisecond, models.ErrUnavailable, time.Hour, 1, "maintenance"},
		{"429 with a negative Retry-After", errorAnswer(429, "-30", `{"reason":"requestThrottled"}`), 0, models.ErrUnavailable, 10 * time.Second, 3, "status=429"},
		{"200 for another clan", errorAnswer(200, "", `{"tag": "#9Y9Y", "name": "Someone Else", "memberList": []}`), 0, models.ErrUnavailable, 10 * time.Second, 1, "another tag"},
		{"200 without a tag", errorAnswer(200, "", `{"tag": null, "memberList": null}`), 0, models.ErrUnavailable, 10 * time.Second, 1, "another tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base, calls := countingUpstream(t, tt.answer)
			client, logs := newClient(t, base, upstream.Config{Timeout: tt.timeout})
			_, err := client.Clan(context.Background(), "C2Q8")
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("error %v, want %v", err, tt.sentinel)
			}
			var unavailable *models.UnavailableError
			if errors.As(err, &unavailable) {
				if unavailable.Source != "upstream" {
					t.Errorf("source %q", unavailable.Source)
				}
				if tt.retryAfter != 0 && unavailable.RetryAfter != tt.retryAfter {
					t.Errorf("retryAfter %v, want %v", unavailable.RetryAfter, tt.retryAfter)
				}
				if tt.retryAfter == 0 && (unavailable.RetryAfter < 59*time.Minute || unavailable.RetryAfter > time.Hour) {
					t.Errorf("retryAfter %v, want about an hour from the HTTP date", unavailable.RetryAfter)
				}
			}
			if got := calls.Load(); got != tt.calls {
				t.Errorf("%d requests, want %d", got, tt.calls)
			}
			out := logs.String()
			if !strings.Contains(out, tt.logged) || !strings.Contains(out, "path=/clans/%23C2Q8") {
				t.Errorf("log lacks %q or the path:\n%s", tt.logged, out)
			}
			if strings.Contains(out, testToken) || strings.Contains(err.Error(), testToken) {
				t.Errorf("the token leaked:\n%s", out)
			}
		})
	}
}

func TestForbiddenLogsTheReasonButNotTheToken(t *testing.T) {
	base, _ := countingUpstream(t, errorAnswer(403, "", `{"reason":"accessDenied","message":"Invalid authorization: token `+testToken+` not valid from 192.0.2.7"}`))
	client, logs := newClient(t, base, upstream.Config{})
	_, err := client.Tournament(context.Background(), "T2Q8")
	if !errors.Is(err, models.ErrUnavailable) {
		t.Fatalf("error %v", err)
	}
	out := logs.String()
	if !strings.Contains(out, "reason=accessDenied") || !strings.Contains(out, "192.0.2.7") || !strings.Contains(out, "status=403") {
		t.Errorf("log lacks the upstream reason or status:\n%s", out)
	}
	if strings.Contains(out, testToken) {
		t.Errorf("the token leaked into the log:\n%s", out)
	}
}

func TestBadRequestIsInvalidAndNotRetried(t *testing.T) {
	base, calls := countingUpstream(t, errorAnswer(400, "", `{"reason":"badRequest","message":"SECRET-UPSTREAM-DETAIL"}`))
	client, logs := newClient(t, base, upstream.Config{})
	_, err := client.SearchClans(context.Background(), legacy.ClanSearchQuery{Name: "royal", MinScore: -1})
	var invalid *models.ValidationError
	if !errors.Is(err, models.ErrInvalid) || !errors.As(err, &invalid) {
		t.Fatalf("error %v, want a ValidationError", err)
	}
	if strings.Contains(invalid.Message, "SECRET") || invalid.Message == "" {
		t.Errorf("caller-facing message %q carries upstream text or nothing", invalid.Message)
	}
	if calls.Load() != 1 {
		t.Errorf("%d requests, want 1", calls.Load())
	}
	if !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("a 400 is not logged as a warning:\n%s", logs.String())
	}
}

// A 400 to a call that takes a tag alone is worded as the contract words
// a bad value, naming the tag.
func TestBadRequestOfATagIsWordedAsABadValue(t *testing.T) {
	base, _ := countingUpstream(t, errorAnswer(400, "", `{"reason":"badRequest","message":"SECRET-UPSTREAM-DETAIL"}`))
	client, _ := newClient(t, base, upstream.Config{})
	_, err := client.PlayerBattles(context.Background(), "2PP")
	var invalid *models.ValidationError
	if !errors.As(err, &invalid) || invalid.Message != "invalid value for 'tag': the game API does not take it" {
		t.Fatalf("error %v, want the contract's words for a bad tag value", err)
	}
}

func TestTransientFailureThenSuccess(t *testing.T) {
	base, calls := countingUpstream(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		answerFile(t, "clan.json")(w, r)
	})
	client, _ := newClient(t, base, upstream.Config{})
	clan, err := client.Clan(context.Background(), "C2Q8")
	if err != nil || clan.Name != "Test Clan" {
		t.Fatalf("clan %q, error %v", clan.Name, err)
	}
	if calls.Load() != 2 {
		t.Errorf("%d requests, want 2", calls.Load())
	}
}

func TestEveryRequestIsAuthorizedAndTagged(t *testing.T) {
	base, _ := countingUpstream(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.Header.Get("Authorization") != "Bearer "+testToken || r.Header.Get("Accept") != "application/json" {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		if r.URL.EscapedPath() != "/v1/players/%23P2Q8/battlelog" {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte(`[]`))
	})
	client, _ := newClient(t, base, upstream.Config{})
	battles, err := client.PlayerBattles(context.Background(), "P2Q8")
	if err != nil || battles == nil || len(battles) != 0 {
		t.Fatalf("battles %v, error %v", battles, err)
	}
}

func TestSlowAnswerEndsAtTheTimeout(t *testing.T) {
	var cancelled atomic.Int32
	base, calls := countingUpstream(t, func(_ http.ResponseWriter, r *http.Request, _ int) {
		<-r.Context().Done()
		cancelled.Add(1)
	})
	client, logs := newClient(t, base, upstream.Config{Timeout: 100 * time.Millisecond})
	_, err := client.Clan(context.Background(), "C2Q8")
	if !errors.Is(err, models.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want unavailable after the deadline", err)
	}
	if n := calls.Load(); n < 1 || n > 3 {
		t.Errorf("%d attempts, want 1 to 3", n)
	}
	if !strings.Contains(logs.String(), "unreachable") {
		t.Errorf("log:\n%s", logs.String())
	}
}

func TestCallerDeadlineWins(t *testing.T) {
	base, _ := countingUpstream(t, func(_ http.ResponseWriter, r *http.Request, _ int) { <-r.Context().Done() })
	client, _ := newClient(t, base, upstream.Config{Timeout: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := client.Cards(ctx); !errors.Is(err, models.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want unavailable at the caller's deadline", err)
	}
}

// closedAddress is a loopback address nothing listens on.
func closedAddress(t *testing.T) string {
	t.Helper()
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := listener.Addr().String()
	listener.Close()
	return addr
}

func TestConnectionRefused(t *testing.T) {
	client, logs := newClient(t, "http://"+closedAddress(t)+"/v1", upstream.Config{})
	_, err := client.Locations(context.Background())
	var unavailable *models.UnavailableError
	if !errors.As(err, &unavailable) || unavailable.RetryAfter != 10*time.Second {
		t.Fatalf("error %v, want unavailable with a 10s advice", err)
	}
	if got := strings.Count(logs.String(), "retrying"); got != 2 {
		t.Errorf("%d retries logged, want 2:\n%s", got, logs.String())
	}
}

func TestConcurrencyIsBounded(t *testing.T) {
	const limit, callers = 3, 12
	var inFlight, peak atomic.Int32
	arrived := make(chan struct{}, callers)
	release := make(chan struct{})
	base, calls := countingUpstream(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		now := inFlight.Add(1)
		defer inFlight.Add(-1)
		for old := peak.Load(); now > old && !peak.CompareAndSwap(old, now); old = peak.Load() {
		}
		arrived <- struct{}{}
		select {
		case <-release:
			_, _ = w.Write([]byte(`{"items":[]}`))
		case <-r.Context().Done():
		}
	})
	releaseAll := sync.OnceFunc(func() { close(release) })
	t.Cleanup(releaseAll)
	client, _ := newClient(t, base, upstream.Config{Concurrency: limit, Timeout: time.Minute})
	done := make(chan error, callers)
	for range callers {
		go func() {
			_, err := client.Cards(context.Background())
			done <- err
		}()
	}
	for range limit {
		<-arrived
	}
	// Every slot is taken: one more call waits for a slot until its
	// deadline and never reaches the upstream.
	probe, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := client.Cards(probe); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("probe call: %v, want its deadline to pass while waiting for a slot", err)
	}
	if got := calls.Load(); got != limit {
		t.Fatalf("%d requests reached the upstream while %d slots were taken", got, limit)
	}
	releaseAll()
	for range callers {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if got := peak.Load(); got != limit {
		t.Fatalf("peak of %d requests in flight, want %d", got, limit)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []upstream.Config{
		{BaseURL: ""},
		{BaseURL: "ftp://example.org/v1"},
		{BaseURL: "https://api.example/v1", Concurrency: -1},
		{BaseURL: "https://api.example/v1", Timeout: -time.Second},
	} {
		if _, err := upstream.New(cfg); err == nil {
			t.Errorf("New(%+v) accepted a bad config", cfg)
		}
	}
}

// An answer is the one of the tournament asked for, or none.
func TestTournamentOfAnotherTagIsUnavailable(t *testing.T) {
	base, _ := countingUpstream(t, errorAnswer(200, "", `{"tag": "#9Y9Y", "name": "Someone Else's Cup", "membersList": []}`))
	client, logs := newClient(t, base, upstream.Config{})
	if _, err := client.Tournament(context.Background(), "T2Q8"); !errors.Is(err, models.ErrUnavailable) {
		t.Fatalf("error %v, want unavailable", err)
	}
	if out := logs.String(); !strings.Contains(out, "another tag") || !strings.Contains(out, "path=/tournaments/%23T2Q8") {
		t.Errorf("log lacks the mismatch or the path:\n%s", out)
	}
}

// A redirect is an unexpected answer, never followed: the token goes to
// the configured address only, even on the same host.
func TestRedirectIsNotFollowed(t *testing.T) {
	elsewhere, reached := countingUpstream(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if r.Header.Get("Authorization") != "" {
			t.Errorf("the token was sent to the redirect's target")
		}
		answerFile(t, "clan.json")(w, r)
	})
	base, _ := countingUpstream(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		http.Redirect(w, r, strings.TrimSuffix(elsewhere, "/v1")+r.URL.RequestURI(), http.StatusFound)
	})
	client, logs := newClient(t, base, upstream.Config{})
	if _, err := client.Clan(context.Background(), "C2Q8"); !errors.Is(err, models.ErrUnavailable) {
		t.Fatalf("error %v, want unavailable", err)
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests", n)
	}
	if !strings.Contains(logs.String(), "status=302") {
		t.Errorf("log lacks the status:\n%s", logs.String())
	}
}

// An answer over the bound is refused whole, even when it would decode,
// and not asked again.
func TestOversizedAnswerIsRefused(t *testing.T) {
	base, calls := countingUpstream(t, func(w http.ResponseWriter, _ *http.Request, _ int) {
		_, _ = w.Write([]byte(`{"tag": "#C2Q8", "name": "Padded"`))
		_, _ = w.Write(bytes.Repeat([]byte(" "), 3<<20))
		_, _ = w.Write([]byte(`}`))
	})
	client, logs := newClient(t, base, upstream.Config{})
	if _, err := client.Clan(context.Background(), "C2Q8"); !errors.Is(err, models.ErrUnavailable) {
		t.Fatalf("error %v, want unavailable", err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	if !strings.Contains(logs.String(), "larger than") {
		t.Errorf("log lacks the reason:\n%s", logs.String())
	}
}

// TestAHangingAttemptLeavesTimeForTheNext: each attempt gets its share of
// the time left (the time left over the attempts left), so two attempts
// that hang do not take the whole call: the third one answers in time.
func TestAHangingAttemptLeavesTimeForTheNext(t *testing.T) {
	base, calls := countingUpstream(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n <= 2 {
			<-r.Context().Done()
			return
		}
		answerFile(t, "clan.json")(w, r)
	})
	client, _ := newClient(t, base, upstream.Config{Timeout: 3 * time.Second, MaxAttempts: 3})
	clan, err := client.Clan(context.Background(), "C2Q8")
	if err != nil || clan.Name != "Test Clan" {
		t.Fatalf("clan %q, error %v; want the third attempt's answer", clan.Name, err)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}
}

// cancelOnRetry is a log handler that ends a call's context as the call
// logs that it waits to retry.
type cancelOnRetry struct{ cancel context.CancelFunc }

func (h cancelOnRetry) Enabled(context.Context, slog.Level) bool { return true }
func (h cancelOnRetry) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "retrying") {
		h.cancel()
	}
	return nil
}
func (h cancelOnRetry) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h cancelOnRetry) WithGroup(string) slog.Handler      { return h }

// TestACallEndedDuringItsWaitToRetryReturnsAtOnce: a caller that gives up
// (a client gone, a scheduler stopping) while the call waits to try again
// gets the failure at once, not after the wait the upstream advised.
func TestACallEndedDuringItsWaitToRetryReturnsAtOnce(t *testing.T) {
	base, calls := countingUpstream(t, errorAnswer(http.StatusServiceUnavailable, "30", `{"reason":"inMaintenance"}`))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, err := upstream.New(upstream.Config{BaseURL: base, Token: testToken, Timeout: time.Minute,
		Logger: slog.New(cancelOnRetry{cancel: cancel})})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := client.Clan(ctx, "C2Q8")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, models.ErrUnavailable) {
			t.Fatalf("error %v, want unavailable", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call ended by its caller still waited out the 30 s the upstream advised")
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
}

// TestAnAdvisedWaitPastTheDeadlineEndsTheCallAtOnce: when the wait the
// upstream advises ends after the call's deadline, the call fails at once
// (its caller answers 503 with the advice) rather than waiting for the
// deadline to try nothing more.
func TestAnAdvisedWaitPastTheDeadlineEndsTheCallAtOnce(t *testing.T) {
	base, calls := countingUpstream(t, errorAnswer(http.StatusTooManyRequests, "120", `{"reason":"requestThrottled"}`))
	client, _ := newClient(t, base, upstream.Config{Timeout: time.Minute})
	done := make(chan error, 1)
	go func() {
		_, err := client.Clan(context.Background(), "C2Q8")
		done <- err
	}()
	select {
	case err := <-done:
		var unavailable *models.UnavailableError
		if !errors.As(err, &unavailable) || unavailable.RetryAfter != 2*time.Minute {
			t.Fatalf("error %v, want unavailable with the advised 2 minutes", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call waited on for its deadline (a minute) though the advised wait (2 minutes) ends after it")
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
}

// TestAnAnswerOfTheTagInAnotherCaseCarriesTheTagAsked: the game writes
// tags in upper case; an answer that writes the tag asked in lower case
// is taken, and stored and served under the tag as asked, not as written.
func TestAnAnswerOfTheTagInAnotherCaseCarriesTheTagAsked(t *testing.T) {
	base, _ := countingUpstream(t, errorAnswer(200, "", `{"tag": "#c2q8", "name": "Lower", "memberList": []}`))
	client, _ := newClient(t, base, upstream.Config{})
	clan, err := client.Clan(context.Background(), "C2Q8")
	if err != nil {
		t.Fatal(err)
	}
	if clan.Tag != "C2Q8" {
		t.Fatalf("clan tag %q, want the tag asked, C2Q8", clan.Tag)
	}
	base, _ = countingUpstream(t, errorAnswer(200, "", `{"tag": "#t2q8", "name": "Lower", "status": "ended"}`))
	client, _ = newClient(t, base, upstream.Config{})
	tournament, err := client.Tournament(context.Background(), "T2Q8")
	if err != nil {
		t.Fatal(err)
	}
	if tournament.Tag != "T2Q8" {
		t.Fatalf("tournament tag %q, want the tag asked, T2Q8", tournament.Tag)
	}
}

// TestAnUnreachableUpstreamIsLoggedWithoutTheQuery: a transport failure
// names the address it failed on, but a call's query holds what a client
// sent (a clan search's name: a key pasted there by mistake, say), which
// is neither logged nor put in the error the API logs; the path is.
func TestAnUnreachableUpstreamIsLoggedWithoutTheQuery(t *testing.T) {
	client, logs := newClient(t, "http://"+closedAddress(t)+"/v1", upstream.Config{})
	const typed = "crw_Q2lIeSyIgG3Ok5Y7v2Ux8mBbDn0aLfPh4Jz1Rt"
	_, err := client.SearchClans(context.Background(), legacy.ClanSearchQuery{Name: typed, MinScore: -1})
	if !errors.Is(err, models.ErrUnavailable) || strings.Contains(err.Error(), typed) {
		t.Fatalf("error %v, want unavailable without the search's name", err)
	}
	if strings.Contains(logs.String(), typed) || !strings.Contains(logs.String(), "/clans") {
		t.Fatalf("the log names the search's name, or not the path:\n%s", logs.String())
	}
}
