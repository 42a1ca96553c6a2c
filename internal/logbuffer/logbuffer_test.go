package logbuffer_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/crownsdev/crowns/internal/logbuffer"
)

// countingWriter records what reaches the real output, and in how many
// writes.
type countingWriter struct {
	mu     sync.Mutex
	writes int
	text   strings.Builder
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	return w.text.Write(p)
}

func (w *countingWriter) read() (string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String(), w.writes
}

func TestOutputBatchesLinesAndNeverHoldsBackWarnings(t *testing.T) {
	real := &countingWriter{}
	out := logbuffer.New(real)
	log := slog.New(logbuffer.Handler(slog.NewTextHandler(out, nil), out)).With("component", "test")
	const lines = 200
	for i := range lines {
		log.Info("request", "n", i)
	}
	log.Error("request failed", "eventId", "e1")
	text, writes := real.read()
	if !strings.Contains(text, "eventId=e1") {
		t.Fatalf("an ERROR line waited in memory:\n%s", text)
	}
	if writes > lines/10 {
		t.Fatalf("%d lines took %d writes, want them batched", lines+1, writes)
	}
	log.Warn("dependency unavailable")
	if text, _ := real.read(); !strings.Contains(text, "dependency unavailable") {
		t.Fatal("a WARN line waited in memory")
	}
	log.Info("last words")
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	text, _ = real.read()
	if got := strings.Count(text, "msg=request "); got != lines || !strings.Contains(text, "last words") {
		t.Fatalf("after Close the output has %d of %d request lines (last words: %v)", got, lines, strings.Contains(text, "last words"))
	}
}

// TestOutputKeepsEveryLineWholeUnderConcurrentWriters: access lines
// written at once from many goroutines land in different buffers; each
// reaches the output whole and none is lost; log records written beside
// them keep their order; a warning brings every line written before it
// out with it.
func TestOutputKeepsEveryLineWholeUnderConcurrentWriters(t *testing.T) {
	real := &countingWriter{}
	out := logbuffer.New(real)
	log := slog.New(logbuffer.Handler(slog.NewJSONHandler(out, nil), out))
	access := out.AccessLines()
	const writers, lines, records = 8, 500, 300
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				_, _ = fmt.Fprintf(access, `{"msg":"request","writer":%d,"n":%d}`+"\n", w, i)
			}
		})
	}
	wg.Go(func() {
		for i := range records {
			log.Info("record", "n", i)
		}
	})
	wg.Wait()
	log.Warn("dependency unavailable")
	text, _ := real.read()
	got := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if want := writers*lines + records + 1; len(got) != want {
		t.Fatalf("after a warning the output has %d lines, want every one of the %d written before it and the warning", len(got), want)
	}
	seen := map[string]bool{}
	next := 0
	for _, line := range got {
		var entry struct {
			Msg    string `json:"msg"`
			Writer int    `json:"writer"`
			N      int    `json:"n"`
		}
		if err := json.Unmarshal([]byte(line), &entry); err != nil {
			t.Fatalf("a torn line: %q: %v", line, err)
		}
		seen[fmt.Sprint(entry.Msg, entry.Writer, entry.N)] = true
		if entry.Msg == "record" {
			if entry.N != next {
				t.Fatalf("log record %d came after record %d", entry.N, next-1)
			}
			next++
		}
	}
	if want := writers*lines + records + 1; len(seen) != want {
		t.Fatalf("%d distinct lines, want %d", len(seen), want)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
