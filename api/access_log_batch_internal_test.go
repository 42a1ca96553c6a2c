package api

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// lineWriter records each Write, which must be of whole lines.
type lineWriter struct {
	mu     sync.Mutex
	lines  []string
	broken bool
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !bytes.HasSuffix(p, []byte("\n")) {
		w.broken = true
	}
	w.lines = append(w.lines, strings.Split(strings.TrimSuffix(string(p), "\n"), "\n")...)
	return len(p), nil
}

func (w *lineWriter) all() ([]string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...), w.broken
}

// TestAccessLogLosesNoLine: lines written from many goroutines, while
// collections make the pool let batches go and while Flush runs, all
// reach the output exactly once, in whole lines. (Their order across
// batches is not kept: a goroutine may move to another processor.)
func TestAccessLogLosesNoLine(t *testing.T) {
	const writers, perWriter = 8, 2000
	out := &lineWriter{}
	log := NewAccessLog(out, false)
	stop := make(chan struct{})
	var flusher sync.WaitGroup
	flusher.Add(1)
	go func() {
		defer flusher.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := log.Flush(); err != nil {
				t.Error(err)
			}
			runtime.GC()
		}
	}()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWriter {
				entry := accessEntry{time: time.Now(), requestID: fmt.Appendf(nil, "w%d-%d", w, i), method: "GET", route: "/healthz", status: 200}
				if !log.write(&entry) {
					t.Error("a plain entry was refused")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	flusher.Wait()
	if err := log.Flush(); err != nil {
		t.Fatal(err)
	}
	lines, broken := out.all()
	if broken {
		t.Fatal("a Write ended within a line")
	}
	seen := make(map[string]bool, len(lines))
	for _, line := range lines {
		var w, i int
		at := strings.Index(line, "requestId=")
		if at < 0 {
			t.Fatalf("not an access line: %q", line)
		}
		if _, err := fmt.Sscanf(line[at:], "requestId=w%d-%d", &w, &i); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		id := fmt.Sprint(w, "-", i)
		if seen[id] || w >= writers || i >= perWriter {
			t.Fatalf("line %q: written twice, or never asked for", line)
		}
		seen[id] = true
	}
	if len(seen) != writers*perWriter {
		t.Fatalf("%d of %d lines reached the output", len(seen), writers*perWriter)
	}
}

// TestAccessLogWritesFullBatchesAndForgetsIdleOnes: a batch that reaches
// accessBatchBytes is written out without a Flush; a batch with no line
// since the last Flush leaves the list.
func TestAccessLogWritesFullBatchesAndForgetsIdleOnes(t *testing.T) {
	out := &lineWriter{}
	log := NewAccessLog(out, false)
	entry := accessEntry{time: time.Now(), requestID: []byte("full"), method: "GET", route: "/healthz", status: 200}
	// One batch, as on one processor (under -race, the pool drops some
	// of what it is given).
	batch := &lineBatch{}
	for range 2 * accessBatchBytes / 50 {
		log.add(batch, &entry)
	}
	if lines, _ := out.all(); len(lines) == 0 {
		t.Fatalf("%d bytes of lines are all still in memory", 2*accessBatchBytes)
	}
	if err := log.Flush(); err != nil {
		t.Fatal(err)
	}
	log.mu.Lock()
	listed := len(log.listed)
	log.mu.Unlock()
	if listed == 0 {
		t.Fatal("a batch that just had lines is not listed")
	}
	if err := log.Flush(); err != nil {
		t.Fatal(err)
	}
	log.mu.Lock()
	listed = len(log.listed)
	log.mu.Unlock()
	if listed != 0 {
		t.Fatalf("%d batches without lines since the last Flush are still listed", listed)
	}
	log.add(batch, &entry)
	if err := log.Flush(); err != nil {
		t.Fatal(err)
	}
	if lines, _ := out.all(); len(lines) != 2*accessBatchBytes/50+1 {
		t.Fatalf("%d lines reached the output, want %d", len(lines), 2*accessBatchBytes/50+1)
	}
}
