// Package outagetest records what a loop logs through an outage, for
// tests that a long outage writes a bounded number of lines. The loop's
// clock is moved by the failures themselves: each line of the failure
// calls a step function (typically advancing a manual clock), in the
// loop's goroutine, before the loop reads the clock again, so that many
// minutes pass on the loop's clock in as many attempts, without sleeping.
package outagetest

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/internal/outage"
)

// awaitLimit bounds how long a test waits for a line.
const awaitLimit = 30 * time.Second

// Recorder is a slog handler that keeps the lines at INFO and above, as
// text without their time, and counts the lines of one failure message at
// any level. Make one with New.
type Recorder struct {
	failing string
	step    func()

	mu       sync.Mutex
	text     bytes.Buffer
	failures int
	// changed is signalled after every line.
	changed chan struct{}
}

// New returns a Recorder that calls step on every line whose message is
// failing.
func New(failing string, step func()) *Recorder {
	return &Recorder{failing: failing, step: step, changed: make(chan struct{}, 1)}
}

// Logger is a logger writing to r.
func (r *Recorder) Logger() *slog.Logger {
	text := slog.NewTextHandler(&lockedWriter{r}, &slog.HandlerOptions{ReplaceAttr: dropTime})
	return slog.New(&handler{r: r, text: text})
}

// Failures is how many lines of the failure message were logged.
func (r *Recorder) Failures() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures
}

// Lines are the lines at INFO and above so far.
func (r *Recorder) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	text := strings.TrimSpace(r.text.String())
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// AwaitFailures waits until at least n lines of the failure message were
// logged.
func (r *Recorder) AwaitFailures(t testing.TB, n int) {
	t.Helper()
	r.await(t, func() bool { return r.Failures() >= n }, "failures logged")
}

// AwaitLine waits for a line at INFO or above whose message is msg.
func (r *Recorder) AwaitLine(t testing.TB, msg string) {
	t.Helper()
	want := "msg=" + quoted(msg)
	r.await(t, func() bool {
		for _, line := range r.Lines() {
			if strings.Contains(line, want) {
				return true
			}
		}
		return false
	}, "a line "+want)
}

// CheckOutage checks that the lines so far are those of one outage whose
// failed attempts were step apart on the loop's clock, and whose
// recovery came step after the last: the first failure, a reminder per
// outage.DefaultReminderInterval, and the recovered line with how long
// the outage lasted and how many attempts failed; nothing else. The lines
// before the first failure are the set-up's, not the outage's: a store's
// migration that waited on the lock another database's migration held
// logs a slow query there, as a loaded machine may.
func (r *Recorder) CheckOutage(t testing.TB, step time.Duration, recovered string) {
	t.Helper()
	failures, lines := r.Failures(), r.Lines()
	first := "msg=" + quoted(r.failing)
	for i, line := range lines {
		if strings.Contains(line, first) {
			lines = lines[i:]
			break
		}
	}
	reminders := (failures - 1) / int(outage.DefaultReminderInterval/step)
	if want := 1 + reminders + 1; len(lines) != want {
		t.Fatalf("%d failed attempts logged %d lines, want %d (first, %d reminders, recovery):\n%s",
			failures, len(lines), want, reminders, strings.Join(lines, "\n"))
	}
	if !strings.Contains(lines[0], "level=WARN") || strings.Contains(lines[0], "failedAttempts") {
		t.Errorf("first line %q, want the first failure at WARN", lines[0])
	}
	last := lines[len(lines)-1]
	tail := fmt.Sprintf("failedFor=%s failedAttempts=%d", time.Duration(failures)*step, failures)
	if !strings.HasPrefix(last, "level=INFO msg="+quoted(recovered)) || !strings.HasSuffix(last, tail) {
		t.Errorf("last line %q, want %q at INFO ending %q", last, recovered, tail)
	}
}

func (r *Recorder) await(t testing.TB, done func() bool, what string) {
	t.Helper()
	deadline := time.After(awaitLimit)
	for !done() {
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("no %s within %s (%d failures logged); lines:\n%s", what, awaitLimit, r.Failures(), strings.Join(r.Lines(), "\n"))
		}
	}
}

// quoted is msg as the text handler writes it.
func quoted(msg string) string {
	if strings.ContainsAny(msg, " =\"") {
		return `"` + strings.ReplaceAll(msg, `"`, `\"`) + `"`
	}
	return msg
}

func dropTime(_ []string, a slog.Attr) slog.Attr {
	if a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// handler is a Recorder's slog.Handler, with the attributes and groups
// of a derived logger in text.
type handler struct {
	r    *Recorder
	text slog.Handler
}

func (h *handler) Enabled(context.Context, slog.Level) bool { return true }

func (h *handler) Handle(ctx context.Context, record slog.Record) error {
	r := h.r
	if record.Message == r.failing {
		r.mu.Lock()
		r.failures++
		r.mu.Unlock()
		r.step()
	}
	var err error
	if record.Level >= slog.LevelInfo {
		err = h.text.Handle(ctx, record)
	}
	select {
	case r.changed <- struct{}{}:
	default:
	}
	return err
}

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &handler{r: h.r, text: h.text.WithAttrs(attrs)}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{r: h.r, text: h.text.WithGroup(name)}
}

// lockedWriter writes to a Recorder's text under its lock.
type lockedWriter struct{ r *Recorder }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.r.text.Write(p)
}
