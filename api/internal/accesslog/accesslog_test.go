package accesslog

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// slogLine is the line slog's text or JSON handler writes for l, the
// JSON handler with durations as text as crowns configures it.
func slogLine(t *testing.T, l *Line, json bool) string {
	t.Helper()
	var out bytes.Buffer
	var h slog.Handler = slog.NewTextHandler(&out, nil)
	if json {
		h = slog.NewJSONHandler(&out, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Value.Kind() == slog.KindDuration {
				a.Value = slog.StringValue(a.Value.Duration().String())
			}
			return a
		}})
	}
	r := slog.NewRecord(l.Time, slog.LevelInfo, Message, 0)
	r.AddAttrs(
		slog.String("requestId", string(l.RequestID)),
		slog.String("method", l.Method),
		slog.String("route", l.Route),
		slog.Int("status", l.Status),
		slog.Duration("latency", l.Latency),
	)
	if l.HasKey {
		r.AddAttrs(slog.Int64("keyId", l.KeyID))
	}
	if err := h.Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func TestLinesAreWhatSlogWrites(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	times := []time.Time{
		time.Date(2026, 11, 24, 13, 58, 33, 846_123_456, time.UTC),
		time.Date(2026, 11, 24, 13, 58, 33, 0, time.UTC),
		time.Date(2026, 11, 24, 13, 58, 33, 900_000_000, time.UTC),
		time.Date(2026, 1, 2, 3, 4, 5, 999_999_999, time.UTC),
		time.Date(2026, 6, 30, 23, 59, 59, 1_000_000, paris),
		time.Now(), // with a monotonic reading
	}
	latencies := []time.Duration{0, 850 * time.Nanosecond, 3025 * time.Nanosecond, 12 * time.Millisecond, 1500 * time.Millisecond, 2 * time.Minute}
	routes := []string{"/player/:tag/battles", "/clan/search", "/healthz", "/no/such/path.json"}
	for _, json := range []bool{false, true} {
		var out bytes.Buffer
		w := New(&out, json)
		for i, at := range times {
			for j, latency := range latencies {
				l := &Line{
					Time: at, RequestID: []byte("7365844b-2s-55u"), Method: "GET", Route: routes[(i+j)%len(routes)],
					Status: []int{200, 304, 401, 429, 404}[j%5], Latency: latency, KeyID: int64(i * j), HasKey: j%2 == 0,
				}
				out.Reset()
				if !w.Write(l) {
					t.Fatalf("json %v: a plain line was declined: %+v", json, l)
				}
				if got, want := out.String(), slogLine(t, l, json); got != want {
					t.Fatalf("json %v:\n got %q\nwant %q", json, got, want)
				}
			}
		}
	}
}

func TestLinesWithStringsSlogWouldQuoteAreDeclined(t *testing.T) {
	var out bytes.Buffer
	w := New(&out, false)
	base := Line{Time: time.Now(), RequestID: []byte("id-1"), Method: "GET", Route: "/clan/search", Status: 200}
	for name, edit := range map[string]func(*Line){
		"space in route":      func(l *Line) { l.Route = "/clan/a b" },
		"equals in route":     func(l *Line) { l.Route = "/clan/a=b" },
		"quote in route":      func(l *Line) { l.Route = `/clan/"x"` },
		"backslash in route":  func(l *Line) { l.Route = `/clan/a\b` },
		"non-ASCII route":     func(l *Line) { l.Route = "/clan/é" },
		"control byte":        func(l *Line) { l.Route = "/clan/\x01" },
		"empty request id":    func(l *Line) { l.RequestID = nil },
		"empty method":        func(l *Line) { l.Method = "" },
		"newline in route id": func(l *Line) { l.Route = "/a\nlevel=ERROR" },
	} {
		l := base
		edit(&l)
		if w.Write(&l) {
			t.Errorf("%s: written as %q, want it left to slog", name, out.String())
		}
		if out.Len() != 0 {
			t.Fatalf("%s: a declined line wrote %q", name, out.String())
		}
	}
}

func TestEachLineIsOneWholeWrite(t *testing.T) {
	// A file takes concurrent writes, each whole.
	out, err := os.Create(filepath.Join(t.TempDir(), "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w := New(out, true)
	var wg sync.WaitGroup
	const writers, lines = 8, 200
	for range writers {
		wg.Go(func() {
			for range lines {
				w.Write(&Line{Time: time.Now(), RequestID: []byte("r-1"), Method: "GET", Route: "/healthz", Status: 200, Latency: time.Microsecond})
			}
		})
	}
	wg.Wait()
	written, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	got := bytes.Split(bytes.TrimSuffix(written, []byte("\n")), []byte("\n"))
	if len(got) != writers*lines {
		t.Fatalf("%d lines, want %d", len(got), writers*lines)
	}
	for _, line := range got {
		if !bytes.HasPrefix(line, []byte(`{"time":"`)) || !bytes.HasSuffix(line, []byte(`"latency":"1µs"}`)) {
			t.Fatalf("a line was torn: %q", line)
		}
	}
}
