// Package logbuffer is the log output of crowns serve: lines wait in
// memory, in several buffers each behind its own lock, and are written out
// together every 100 ms, when a buffer fills, and at once after a warning
// or an error. It exists because it was measured (docs/performance.md):
// serving one cached 15 kB battles answer under wrk on two cores, Crowns
// spent 6.45 µs of user CPU a request with every line through one buffer
// behind one lock, 5.8 µs with these buffers (4.8–5.2 µs with
// api/internal/accesslog writing the lines), and 4.4–4.6 µs with the
// access log off.
package logbuffer

import (
	"context"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
)

// flushInterval is how long a line may wait in memory before it is
// written out.
const flushInterval = 100 * time.Millisecond

// bufferBytes is the size at which a buffer is written out at once.
const bufferBytes = 16 << 10

// Output is the buffered log output. One access line per request
// written straight to stderr would cost a system call each, and
// one buffer behind one lock would make the cores of a busy server take
// turns at it for every line. So lines wait in buffers, written out every
// flushInterval, when one holds bufferBytes, at once after a line
// at WARN or above (the handler of Handler sees to it, with every line
// before it), and at Close. Log records (Write) all go into the first
// buffer, in order; the API's access lines (AccessLines) each into the
// first buffer free (see lockBuffer), so that cores do not wait for each
// other.
//
// An access line may therefore reach the output out of order with other
// lines, by at most flushInterval; each carries its time. A crash
// loses at most the INFO lines of the last interval.
type Output struct {
	// outMu serializes the writes to out.
	outMu   sync.Mutex
	out     io.Writer
	buffers []lineBuffer
	stop    context.CancelFunc
	done    chan struct{}
}

// lineBuffer is lines not yet written out, behind a lock of their own.
type lineBuffer struct {
	mu    sync.Mutex
	lines []byte
	// The padding keeps each buffer's lock on a cache line of its own, so
	// that cores writing to different buffers do not slow each other.
	_ [64]byte
}

// New buffers out and writes it out every flushInterval
// until Close. It keeps twice as many buffers as the processors Go uses,
// so that a line nearly always finds one free at the first try.
func New(out io.Writer) *Output {
	ctx, stop := context.WithCancel(context.Background())
	b := &Output{out: out, buffers: make([]lineBuffer, 2*runtime.GOMAXPROCS(0)), stop: stop, done: make(chan struct{})}
	go b.flushEvery(ctx, flushInterval)
	return b
}

// Write takes a whole line (slog handlers write a record at a time) into
// the first buffer, where log records keep their order.
func (b *Output) Write(p []byte) (int, error) {
	buffer := &b.buffers[0]
	buffer.mu.Lock()
	defer buffer.mu.Unlock()
	return b.appendLocked(buffer, p)
}

// AccessLines is the writer of the API's access lines: each, a whole
// line, goes into the first free buffer.
func (b *Output) AccessLines() io.Writer { return anyFreeBuffer{b} }

// anyFreeBuffer writes a line into the first free buffer of its log.
type anyFreeBuffer struct{ log *Output }

func (w anyFreeBuffer) Write(p []byte) (int, error) {
	buffer := w.log.lockBuffer()
	defer buffer.mu.Unlock()
	return w.log.appendLocked(buffer, p)
}

// appendLocked adds p to buffer, locked by the caller, writing the buffer
// out once it holds bufferBytes.
func (b *Output) appendLocked(buffer *lineBuffer, p []byte) (int, error) {
	buffer.lines = append(buffer.lines, p...)
	if len(buffer.lines) >= bufferBytes {
		if err := b.writeOutLocked(buffer); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// lockBuffer locks and returns the first free buffer from a random one
// on, or waits for that one when none is free.
func (b *Output) lockBuffer() *lineBuffer {
	start := rand.N(len(b.buffers))
	for i := range b.buffers {
		if buffer := &b.buffers[(start+i)%len(b.buffers)]; buffer.mu.TryLock() {
			return buffer
		}
	}
	buffer := &b.buffers[start]
	buffer.mu.Lock()
	return buffer
}

// Flush writes out what is buffered.
func (b *Output) Flush() error {
	var err error
	for i := range b.buffers {
		buffer := &b.buffers[i]
		buffer.mu.Lock()
		if writeErr := b.writeOutLocked(buffer); err == nil {
			err = writeErr
		}
		buffer.mu.Unlock()
	}
	return err
}

// writeOutLocked writes the lines of buffer, locked by the caller, out.
func (b *Output) writeOutLocked(buffer *lineBuffer) error {
	if len(buffer.lines) == 0 {
		return nil
	}
	b.outMu.Lock()
	_, err := b.out.Write(buffer.lines)
	b.outMu.Unlock()
	buffer.lines = buffer.lines[:0]
	return err
}

// Close stops the periodic flush and writes out what is left.
func (b *Output) Close() error {
	b.stop()
	<-b.done
	return b.Flush()
}

func (b *Output) flushEvery(ctx context.Context, interval time.Duration) {
	defer close(b.done)
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			_ = b.Flush()
		}
	}
}

// flushingHandler writes a record through its handler and, for WARN and
// above, flushes the buffered output at once: warnings and errors are
// never left waiting in memory, nor are the lines before them.
type flushingHandler struct {
	slog.Handler
	out *Output
}

// Handle writes the record, flushing after a warning or an error.
func (h flushingHandler) Handle(ctx context.Context, r slog.Record) error {
	err := h.Handler.Handle(ctx, r)
	if r.Level >= slog.LevelWarn {
		if flushErr := h.out.Flush(); err == nil {
			err = flushErr
		}
	}
	return err
}

// WithAttrs keeps the flushing behaviour on the derived handler.
func (h flushingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return flushingHandler{Handler: h.Handler.WithAttrs(attrs), out: h.out}
}

// WithGroup keeps the flushing behaviour on the derived handler.
func (h flushingHandler) WithGroup(name string) slog.Handler {
	return flushingHandler{Handler: h.Handler.WithGroup(name), out: h.out}
}

// Handler is handler writing to out, flushing out after every record at
// WARN or above (and so every line before it): warnings and errors never
// wait in memory.
func Handler(handler slog.Handler, out *Output) slog.Handler {
	return flushingHandler{Handler: handler, out: out}
}
