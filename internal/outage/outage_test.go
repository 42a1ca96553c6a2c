package outage_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/crownsdev/crowns/internal/outage"
)

// TestLog: a run of failures is logged once when it starts, then at most
// once per reminder interval with how long it has lasted and how many
// attempts failed, the rest at DEBUG, and its end once at INFO; a
// success without failures before it logs nothing.
func TestLog(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	down := errors.New("connection refused")
	// A step is an attempt after the clock moved by after: a success, or
	// a failure; want is the line it writes ("" none).
	type step struct {
		after time.Duration
		ok    bool
		want  string
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"successes only", []step{{0, true, ""}, {time.Second, true, ""}}},
		{"one failure, then success", []step{
			{0, false, "level=WARN msg=failing error=\"connection refused\""},
			{time.Second, true, "level=INFO msg=recovered failedFor=1s failedAttempts=1"},
			{time.Second, true, ""},
		}},
		{"failures within the interval go to DEBUG", []step{
			{0, false, "level=WARN msg=failing error=\"connection refused\""},
			{time.Second, false, "level=DEBUG msg=failing error=\"connection refused\" failingFor=1s failedAttempts=2"},
			{58 * time.Second, false, "level=DEBUG msg=failing error=\"connection refused\" failingFor=59s failedAttempts=3"},
			{time.Second, false, "level=WARN msg=failing error=\"connection refused\" failingFor=1m0s failedAttempts=4"},
			{30 * time.Second, false, "level=DEBUG msg=failing error=\"connection refused\" failingFor=1m30s failedAttempts=5"},
			{30 * time.Second, false, "level=WARN msg=failing error=\"connection refused\" failingFor=2m0s failedAttempts=6"},
			{5 * time.Second, true, "level=INFO msg=recovered failedFor=2m5s failedAttempts=6"},
		}},
		{"a new run after a success starts over", []step{
			{0, false, "level=WARN msg=failing error=\"connection refused\""},
			{2 * time.Minute, true, "level=INFO msg=recovered failedFor=2m0s failedAttempts=1"},
			{time.Second, false, "level=WARN msg=failing error=\"connection refused\""},
			{time.Second, false, "level=DEBUG msg=failing error=\"connection refused\" failingFor=1s failedAttempts=2"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			handler := slog.NewTextHandler(&buf, &slog.HandlerOptions{
				Level: slog.LevelDebug,
				ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
					if a.Key == slog.TimeKey {
						return slog.Attr{}
					}
					return a
				},
			})
			now := start
			log := outage.New(outage.Config{
				Logger:    slog.New(handler),
				Now:       func() time.Time { return now },
				Failing:   "failing",
				Recovered: "recovered",
			})
			for i, s := range tt.steps {
				now = now.Add(s.after)
				buf.Reset()
				err := down
				if s.ok {
					err = nil
				}
				log.Outcome(context.Background(), err)
				if got := strings.TrimSpace(buf.String()); got != s.want {
					t.Errorf("step %d: logged\n%q, want\n%q", i, got, s.want)
				}
			}
		})
	}
}

// TestLogLevelAndArgs: the configured level and the caller's attributes
// are those of the failing lines.
func TestLogLevelAndArgs(t *testing.T) {
	var buf bytes.Buffer
	handler := slog.NewTextHandler(&buf, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}})
	log := outage.New(outage.Config{Logger: slog.New(handler), Failing: "tick failed", Recovered: "ticking again", Level: slog.LevelError})
	log.Failed(context.Background(), errors.New("boom"), "retryIn", time.Second)
	want := "level=ERROR msg=\"tick failed\" error=boom retryIn=1s"
	if got := strings.TrimSpace(buf.String()); got != want {
		t.Errorf("logged %q, want %q", got, want)
	}
}

// TestAFailureOnceTheLoopStopsIsNoOutage: a failure that comes with its
// loop's context ended (the process stopping) is not logged, nor counted:
// the next success after it logs no recovery.
func TestAFailureOnceTheLoopStopsIsNoOutage(t *testing.T) {
	var buf bytes.Buffer
	log := outage.New(outage.Config{Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Failing: "failing", Recovered: "recovered"})
	stopped, stop := context.WithCancel(context.Background())
	stop()
	log.Outcome(stopped, errors.New("context canceled"))
	log.Outcome(context.Background(), nil)
	if buf.Len() != 0 {
		t.Fatalf("logged %q, want nothing", buf.String())
	}
}
