package main

import (
	"strings"
	"sync"
	"testing"
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

func TestBufferedLogBatchesLinesAndNeverHoldsBackWarnings(t *testing.T) {
	real := &countingWriter{}
	out := newBufferedLog(real)
	log := newBufferedLogger(out, config{LogLevel: "info", LogFormat: "text"}).With("component", "test")
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
